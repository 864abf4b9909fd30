package tap

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// call is one tools/call the tap saw: one HTTP exchange (or one member of
// a batch). Its events come from the exchange's goroutine, from its timeout
// timer and from a notifications/cancelled on another exchange, so every
// emit holds mu.
type call struct {
	t          *Tap
	msg        *jsonrpc.Message // the request, as read
	idKey      string
	tokenKey   string
	tool       string
	taskID     string
	toolCallID string
	idemKey    string
	scope      scope  // the session and connection its request came on
	seq        uint64 // its exchange's number (see pendingRound.seq)
	start      time.Time
	// callEv is the prepared tool.call; its Exchange (the tap's sequence
	// number, "12" or "12.2" in a batch; a later round's, its first
	// round's), RequestID (as on the wire) and Round (once an answer asked
	// for input) are the call's.
	callEv  model.Event
	pending []model.Warning // found while parsing, emitted after the tool.call

	// relays: the platform relays this call's progress (it came over HTTP
	// with AgentArea context), so the 0.5 s rule is applied to it; plain
	// MCP and the stdio tap have nothing that relays.
	relays bool
	// agentArea: the call came with AgentArea context, so the platform's
	// result limits apply to its answer (decoder.SummarizeResult).
	agentArea bool

	mu       sync.Mutex
	timer    *time.Timer
	relay    decoder.RelaySimulator
	checker  decoder.ProgressChecker
	ended    bool // a result, failure or cancellation was emitted
	timedOut bool
	stale    bool // past twice the timeout without a result: no longer in flight
	// goneAt is when the client closed the call's stream; its tool.cancelled
	// waits cancelGrace for a notifications/cancelled that says why.
	goneAt    time.Time
	gone      atomic.Bool // goneAt is set (read without mu by the registry)
	cancelled bool        // ended by a cancellation: later progress is not relayed
}

// cancelGrace is how long a call whose stream the client closed stays
// matchable by a notifications/cancelled. AgentArea sends the notification
// just before it closes the stream, a go-sdk client just after; either one
// may be parsed a moment after the close is seen.
const cancelGrace = 250 * time.Millisecond

// event is a call event with the call's identity filled in.
func (c *call) event(kind model.Kind, at time.Time) model.Event {
	return model.Event{
		Time: at.UTC(), Kind: kind,
		TaskID: c.taskID, ToolCallID: c.toolCallID, Tool: c.tool,
		Exchange: c.callEv.Exchange, RequestID: c.callEv.RequestID, IdempotencyKey: c.idemKey, Round: c.callEv.Round,
	}
}

func (c *call) warn(at time.Time, code model.WarningCode, msg string) {
	ev := c.event(model.KindWarning, at)
	ev.Code, ev.Message = string(code), msg
	c.t.emit(ev)
}

func (c *call) warnAll(at time.Time, ws []model.Warning) {
	for _, w := range ws {
		c.warn(at, w.Code, w.Message)
	}
}

// startTimer arms the contract's timeout: past it the platform has given up.
func (c *call) startTimer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.timer = time.AfterFunc(time.Until(c.start.Add(c.t.cfg.Timeout)), c.onTimeout)
}

func (c *call) onTimeout() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	if c.timedOut {
		// Twice the timeout and still nothing: stop matching ids to it.
		c.stale = true
		c.t.calls.remove(c)
		return
	}
	c.timedOut = true
	msg := fmt.Sprintf("no result within %v (--timeout)", c.t.cfg.Timeout)
	if c.relays { // a platform's call: the platform gives up
		msg = fmt.Sprintf("no result within %v: the platform gives up here (\"MCP tool call timed out\") and sends notifications/cancelled", c.t.cfg.Timeout)
	}
	c.warn(time.Now(), model.WarnCallTimeout, msg)
	c.timer.Reset(c.t.cfg.Timeout)
}

// finishLocked marks the call over: no timer, no longer in flight.
func (c *call) finishLocked() {
	c.ended = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.t.calls.remove(c)
}

func (c *call) onProgress(at time.Time, p jsonrpc.Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ev := c.event(model.KindToolProgress, at)
	ev.Progress, ev.Total, ev.Message = p.Progress, p.Total, p.Message
	if c.cancelled || !c.goneAt.IsZero() {
		// The platform has given up on the call: nothing more is relayed.
		ev.AfterCancel = true
		if c.relays {
			ev.Relayed = model.BoolRef(false)
		}
	} else if c.relays {
		ev.Relayed = model.BoolRef(c.relay.Relay(at, p))
	}
	c.t.emit(ev)
	if w := c.checker.Check(p); w != nil {
		c.warn(at, w.Code, w.Message)
	}
}

// resultEvent is a tool.result with the timing fields filled in.
func (c *call) resultEvent(at time.Time, status int) model.Event {
	ev := c.event(model.KindToolResult, at)
	ev.HTTPStatus = status
	ev.DurationMS = durationMS(at.Sub(c.start))
	ev.Late = at.Sub(c.start) > c.t.cfg.Timeout
	return ev
}

// onResult reports the JSON-RPC response to the call.
func (c *call) onResult(at time.Time, m *jsonrpc.Message, status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	askes := m.Error == nil && m.Summary != nil && m.Summary.ResultType == model.ResultInputRequired && !c.ended
	if askes {
		c.callEv.Round = max(c.callEv.Round, 1)
	}
	ev := c.resultEvent(at, status)
	var ws []model.Warning
	if m.Error != nil {
		decoder.ErrorSummary(m.Error).ApplyTo(&ev)
	} else {
		var s decoder.ResultSummary
		s, ws = decoder.SummarizeResult(m.Summary, c.agentArea)
		s.ApplyTo(&ev)
		if askes {
			ws = append(ws, c.inputWarnings(&s)...)
		}
	}
	if c.ended {
		c.warn(at, model.WarnResultAfterEnd, "a result arrived after the call was cancelled or failed")
	}
	if askes {
		// Waiting before it is out of flight: a next round that looks for it
		// in between finds it in one place or the other (roundPending).
		c.t.calls.awaitNextRound(c, m.Summary)
	}
	c.finishLocked()
	c.t.emit(ev)
	c.warnAll(at, ws)
}

// onFailure reports a call that got no JSON-RPC response: an HTTP error, an
// unreachable upstream, a broken stream, a rejection by --enforce.
func (c *call) onFailure(at time.Time, status, rpcCode int, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	ev := c.resultEvent(at, status)
	ev.RPCCode, ev.Error = rpcCode, msg
	c.finishLocked()
	c.t.emit(ev)
}

func (c *call) onCancel(at time.Time, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancelLocked(at, reason)
}

func (c *call) cancelLocked(at time.Time, reason string) {
	if c.ended {
		return
	}
	if !c.goneAt.IsZero() && c.goneAt.Before(at) {
		at = c.goneAt // the call ended when its stream closed
	}
	ev := c.event(model.KindToolCancelled, at)
	ev.Reason = reason
	c.cancelled = true
	c.finishLocked()
	c.t.emit(ev)
}

// onClientGone: the client closed the call's stream at `at` (in 2026-07-28
// that is the cancellation). The tool.cancelled waits cancelGrace for a
// notifications/cancelled with the reason; without one, a close at the
// call's timeout is that timeout.
func (c *call) onClientGone(at time.Time) {
	if c.t.closing.Load() && !at.Before(time.Unix(0, c.t.closedAt.Load())) {
		c.onCancel(at, "tap shut down") // cut by the shutdown
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended || !c.goneAt.IsZero() {
		return
	}
	c.goneAt = at
	c.gone.Store(true)
	if h := c.t.calls.claimHeld(c, at); h != nil {
		c.cancelLocked(h.at, h.reason) // the ambiguous notification sent just before named this call
		return
	}
	c.t.inflight.Add(1) // Shutdown waits for the tool.cancelled
	time.AfterFunc(cancelGrace, func() {
		defer c.t.inflight.Done()
		c.mu.Lock()
		defer c.mu.Unlock()
		c.cancelLocked(at, c.goneReason(at))
	})
}

// goneReason says why a client closed a call's stream, as far as the tap
// can tell: at the call's timeout (less a margin for the time the request
// took to reach the tap), the platform gave up.
func (c *call) goneReason(at time.Time) string {
	timeout := c.t.cfg.Timeout
	if at.Sub(c.start) >= timeout-min(timeout/10, time.Second) {
		return "timed out after " + strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64) + " s"
	}
	return "client disconnected"
}

// stop silences the timer at shutdown.
func (c *call) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
	}
}

// durationMS rounds up, so a call that took any time never shows 0.
func durationMS(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
