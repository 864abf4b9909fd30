package model

import (
	"encoding/json"
	"math"
	"time"
)

// Status of a call, as the screen shows it.
type Status string

const (
	StatusRunning   Status = "running"
	StatusOK        Status = "ok"
	StatusError     Status = "error"
	StatusCancelled Status = "cancelled"
	StatusLate      Status = "late"
	// StatusNeedsInput: the server answered asking the client for input
	// (MCP 2026-07-28 input_required) and the call waits for its next round.
	StatusNeedsInput Status = "needs input"
)

// Limits that keep one call's memory bounded.
const (
	maxPoints   = 64 // progress points kept per call (first, then a thinning sample; last is Progress)
	maxTimeline = 64 // non-progress events kept per call
	MaxAttempts = 16
	maxWarnings = 32
)

// Call is one tool call as every source saw it: all its attempts, its
// progress and its result. A Call taken from a Snapshot is immutable: the
// store copies a call before changing it once a snapshot may hold it.
type Call struct {
	ID             string // stable: "task_id/tool_call_id", or "tap#exchange"
	TaskID         string
	ToolCallID     string
	Tool           string
	AgentName      string
	IdempotencyKey string
	RequestID      string
	Sources        []string // source names that saw the call, first seen first

	FirstSeen  time.Time
	Started    time.Time // first tool.call
	Ended      time.Time // zero while running
	LastUpdate time.Time
	TimeoutMS  int64
	Status     Status

	Arguments   json.RawMessage
	meta        objectText // see Meta
	Context     *Context   // of the latest attempt that carried one
	SoatContext map[string]string
	headers     objectText // see Headers

	Attempts []Attempt
	Progress Progress
	Warnings []Event         // warning events about this call (bounded)
	timeline []timelineEvent // every non-progress event (bounded): see Timeline
	Events   int             // events applied to this call, all kinds

	// The small fields share one word (a tap call makes a Call each, and
	// the store retains thousands: 576 bytes, not 640).
	Flags      CallFlag // summary bits for filters and the table
	SeenByFeed bool     // a task feed reported the call (its relayed count is then real)
	// Relays: a platform relays the call's progress (a feed saw it, or a
	// tap judged its progress under the relay rule). False on plain MCP,
	// which has no relay rule and no relayed count.
	Relays        bool
	firstTimeline uint8 // the timeline's first capacity (0: 4)
}

// CallFlag bits summarise what the table's flags column shows.
type CallFlag uint16

const (
	FlagRetried CallFlag = 1 << iota
	FlagReplayed
	FlagImages
	FlagStructured
	FlagStructuredDropped
	FlagOffloaded
	FlagLimit // an image over the limits, too many images...
	FlagRejected
	FlagLate
	FlagPII
	FlagWarning
)

// Attempt is one try of a call: a tap's HTTP exchange, a feed's retry.
type Attempt struct {
	N          int
	SourceName string // the tap that carried it, when a tap saw it
	Exchange   string
	RequestID  string
	Started    time.Time
	Ended      time.Time
	Context    *Context
	FeedCall   bool // a feed's tool.call was seen for this attempt
	Cancelled  string
	HasResult  bool
	Result     Result
	// Rounds are the rounds of a multi-round call (nil for a call of one).
	Rounds []Round
}

// Result is what a call answered, merged from every source that saw it.
// Its JSON (a call's document: get_call, `y`) names its fields as a
// tool.result line does.
type Result struct {
	Time                     time.Time       `json:"time"`
	IsError                  bool            `json:"is_error"`
	Error                    string          `json:"error,omitempty"`
	Replayed                 bool            `json:"replayed,omitempty"`
	DurationMS               int64           `json:"duration_ms,omitempty"`
	HTTPStatus               int             `json:"http_status,omitempty"`
	RPCCode                  int             `json:"rpc_code,omitempty"`
	TextChars                int             `json:"text_chars,omitempty"`
	TextPreview              string          `json:"text_preview,omitempty"`
	Offloaded                bool            `json:"offloaded,omitempty"`
	Images                   []Image         `json:"images,omitempty"`
	StructuredContent        json.RawMessage `json:"structured_content,omitempty"`
	StructuredContentBytes   int             `json:"structured_content_bytes,omitempty"`
	StructuredContentDropped bool            `json:"structured_content_dropped,omitempty"`
	Late                     bool            `json:"late,omitempty"`
	ResultType               string          `json:"result_type,omitempty"`
	Denied                   string          `json:"denied,omitempty"`
}

// Progress is the progress state of a call: the latest values, counts per
// source and a bounded history of points.
type Progress struct {
	Progress float64
	Total    float64
	HasTotal bool
	Message  string
	LastAt   time.Time

	Sent          int // notifications a tap saw the server send
	WouldRelay    int // of those, how many the platform's 0.5 s rule relays
	Relayed       int // tool.progress events a feed delivered
	NotIncreasing int
	AfterCancel   int // notifications a tap saw after the call was cancelled

	// points is the history, out of line: most calls have none, and a
	// call copied for a snapshot's sake copies it only when it has one.
	points  *pointHistory
	NPoints int
	// stride and skipped share a word: a Call holds a Progress, and 8
	// bytes less keep a Call in the 576-byte size class.
	stride  int32 // keep one point in stride once the history is full
	skipped int32
	lastTap float64
	lastFed float64
}

// Point is one progress notification kept in the history.
type Point struct {
	UnixNano int64
	Progress float64
	Total    float64 // 0 with HasTotal false when unknown
	HasTotal bool
	Relayed  bool
	FromTap  bool
	// AfterCancel: sent after the call was cancelled (never relayed).
	AfterCancel bool
	Message     string
}

// Time of the point.
func (p Point) Time() time.Time { return time.Unix(0, p.UnixNano) }

// AgentArea says whether the call speaks AgentArea: a feed reported it, a
// platform relays its progress, or it came with a context token or
// agentarea/* _meta keys. A call without any of it is plain MCP: no token
// to judge and no relay rule.
func (c *Call) AgentArea() bool {
	return c.SeenByFeed || c.Relays || c.HasMeta() || c.Context != nil && c.Context.Present
}

// SentCount is the number of notifications the server sent, as far as known:
// what a tap saw, else what the feed relayed.
func (c *Call) SentCount() int {
	if c.Progress.Sent > 0 {
		return c.Progress.Sent
	}
	return c.Progress.Relayed
}

// RelayedCount is what the platform relayed: the feed's count when a feed saw
// the call, else the tap's prediction under the 0.5 s rule.
func (c *Call) RelayedCount() int {
	if c.SeenByFeed {
		return c.Progress.Relayed
	}
	return c.Progress.WouldRelay
}

// LastAttempt is the latest attempt, or nil before any.
func (c *Call) LastAttempt() *Attempt {
	if len(c.Attempts) == 0 {
		return nil
	}
	return &c.Attempts[len(c.Attempts)-1]
}

// Finished says whether the call has ended (any status but running or
// needs input).
func (c *Call) Finished() bool { return c.Status != StatusRunning && c.Status != StatusNeedsInput }

// Elapsed is the call's duration so far (or in all, once ended).
func (c *Call) Elapsed(now time.Time) time.Duration {
	start := c.Started
	if start.IsZero() {
		start = c.FirstSeen
	}
	if !c.Ended.IsZero() {
		return c.Ended.Sub(start)
	}
	return now.Sub(start)
}

// clone copies what the store changes in place; append-only slices
// (timeline, Warnings, Sources) may share their arrays because a
// snapshot never looks past its own length.
func (c *Call) clone() *Call {
	n := *c
	n.Attempts = append([]Attempt(nil), c.Attempts...)
	for i := range n.Attempts {
		if r := n.Attempts[i].Rounds; r != nil {
			n.Attempts[i].Rounds = append([]Round(nil), r...)
		}
	}
	if h := c.Progress.points; h != nil {
		kept := make([]Point, len(h.kept), cap(h.kept))
		copy(kept, h.kept)
		n.Progress.points = &pointHistory{kept: kept}
	}
	if c.Context != nil {
		ctx := *c.Context
		n.Context = &ctx
	}
	return &n
}

// pointHistory holds a call's kept progress points. Its array grows 16,
// 32, 64 points (a Point is 48 bytes): a call with a few notifications does
// not hold room for 64.
type pointHistory struct{ kept []Point }

const firstPoints = 16

func (p *Progress) addPoint(pt Point) {
	if p.stride == 0 {
		p.stride = 1
	}
	if p.NPoints > 0 && p.skipped+1 < p.stride {
		p.skipped++
		return
	}
	p.skipped = 0
	if p.points == nil {
		p.points = &pointHistory{kept: make([]Point, 0, firstPoints)}
	}
	h := p.points
	if len(h.kept) == maxPoints {
		// Thin the history: keep every other point (the first stays).
		for i := 1; i < maxPoints/2; i++ {
			h.kept[i] = h.kept[2*i]
		}
		clear(h.kept[maxPoints/2:])
		h.kept = h.kept[:maxPoints/2]
		if p.stride < math.MaxInt32/2 {
			p.stride *= 2
		}
	}
	if len(h.kept) == cap(h.kept) {
		grown := make([]Point, len(h.kept), min(2*cap(h.kept), maxPoints))
		copy(grown, h.kept)
		h.kept = grown
	}
	h.kept = append(h.kept, pt)
	p.NPoints = len(h.kept)
}

// History returns the kept points, oldest first.
func (p *Progress) History() []Point {
	if p.points == nil {
		return nil
	}
	return p.points.kept
}
