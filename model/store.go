package model

import (
	"slices"
	"sync"
	"time"
)

// Options bound the store's memory.
type Options struct {
	MaxFinishedCalls int // finished calls retained; the oldest are evicted first
	MaxSeenEventIDs  int // feed event ids remembered for de-duplication
	MaxOtherEvents   int // task, source and pass-through events retained
	// MaxRunningCalls bounds calls still running; past it the oldest is
	// ended and becomes a finished call (see stale.go).
	MaxRunningCalls int
	// IdleRunningCalls ends a running call with no event for this long.
	IdleRunningCalls time.Duration
}

// DefaultOptions suits a long-running monitor.
func DefaultOptions() Options {
	return Options{MaxFinishedCalls: 10000, MaxSeenEventIDs: 200000, MaxOtherEvents: 1000,
		MaxRunningCalls: DefaultMaxRunningCalls, IdleRunningCalls: defaultIdleRunningCalls}
}

// SourceState is the latest known state of one source.
type SourceState struct {
	Source   string
	Name     string
	State    string
	Detail   string
	Events   int64
	Calls    int
	Changed  time.Time
	Attempts int // reconnect attempts reported so far
	// AgentArea: the source speaks AgentArea (a feed; a tap once a call
	// came with AgentArea context); Soat: a call came with SOAT's context
	// headers. A tap with neither carries plain MCP.
	AgentArea bool
	Soat      bool
}

// Snapshot is an immutable, consistent view of the store. Its calls must not
// be modified.
type Snapshot struct {
	Version    uint64
	Calls      []*Call // in first-seen order
	Sources    []SourceState
	Other      []Event // task, source, pass-through and unattached events, newest last
	Events     int64   // events applied
	Duplicates int64   // events ignored as already applied (same event_id)
	Evicted    int64   // finished calls evicted to bound memory
	Warnings   int64
}

// SpeaksAgentArea says whether AgentArea's contract applies to a call: it
// carries AgentArea context, its tap was told to require a token (a
// verdict other than absent: a secret or a credential header was given),
// or a source that saw it carries AgentArea context on other calls (a call
// there without a token is missing one). A call of sources that only ever
// carried plain MCP is judged by MCP alone: no token verdict.
func (s *Snapshot) SpeaksAgentArea(c *Call) bool {
	if c.AgentArea() || c.Context != nil && c.Context.Verdict != VerdictAbsent {
		return true
	}
	for i := range s.Sources {
		if src := &s.Sources[i]; src.AgentArea && slices.Contains(c.Sources, src.Name) {
			return true
		}
	}
	return false
}

// MissingToken says whether a tap saw the call without the token
// AgentArea's contract asks for, where that contract applies
// (SpeaksAgentArea): its verdict is absent, or it has none because the tap
// judged it before it first carried context (the tap judges on side
// workers, so that order can differ from the calls' order).
func (s *Snapshot) MissingToken(c *Call) bool {
	if c.Context != nil {
		return c.Context.Verdict == VerdictAbsent && s.SpeaksAgentArea(c)
	}
	return slices.ContainsFunc(c.Attempts, func(a Attempt) bool { return a.Exchange != "" }) && s.SpeaksAgentArea(c)
}

// FindCall returns the call with this ID (or tool_call_id), or nil.
func (s *Snapshot) FindCall(id string) *Call {
	for _, c := range s.Calls {
		if c.ID == id {
			return c
		}
	}
	for _, c := range s.Calls {
		if c.ToolCallID == id {
			return c
		}
	}
	return nil
}

type keyKind uint8

const (
	keyIDs keyKind = iota + 1
	keyIdem
	keyExchange
)

// CallKey is one identity an event carries: (task_id, tool_call_id), the
// idempotency key, or a tap's exchange. Comparable, for map keys.
type CallKey struct {
	kind keyKind
	a, b string
}

// entry is the stable slot of a call: the store swaps entry.call when it
// copies a call that a snapshot may hold.
type entry struct {
	call      *Call
	gen       uint64 // store generation call was made mutable in
	dead      bool
	queued    bool // in the finished queue
	runQueued bool // in the running queue
	finished  bool
	// The call's first keys are the entry's own (see store_keys.go): the
	// keys are the store's, not the call's, and a call has three at most
	// unless merged.
	nKeys   uint8
	keyBuf  [inlineKeys]CallKey
	keyHash [inlineKeys]uint64
	more    *[]CallKey // keys past the three (a call merged from two)
}

type sourceKey struct{ source, name string }

// Store holds every call and source. Apply is its only mutation; it is safe
// for concurrent use.
type Store struct {
	mu   sync.Mutex
	opts Options

	calls    keyIndex
	order    []*entry
	dead     int
	finished []*entry // FIFO of entries that finished, oldest first
	finHead  int
	nFin     int      // live finished calls
	runQueue []*entry // entries that were running when queued, oldest first
	runHead  int

	clock      time.Time // the latest event time applied
	sinceSweep int
	notes      []Event // events the store made (calls it ended), for the hub

	seen *SeenIDs

	sources     map[sourceKey]*SourceState
	sourceOrder []sourceKey
	lastSource  *SourceState // the latest source looked up
	// names is a new call's Sources, shared by every call of the latest
	// source (cap 1: a second source's append makes the call its own).
	names    []string
	feedSeen bool // a feed has sent events: calls are joined from two sources

	other []Event

	version, gen                          uint64
	events, duplicates, evicted, warnings int64
	last                                  *Snapshot
}

// NewStore makes an empty store. Zero option values take the defaults.
func NewStore(o Options) *Store {
	d := DefaultOptions()
	if o.MaxFinishedCalls <= 0 {
		o.MaxFinishedCalls = d.MaxFinishedCalls
	}
	if o.MaxSeenEventIDs <= 0 {
		o.MaxSeenEventIDs = d.MaxSeenEventIDs
	}
	if o.MaxOtherEvents <= 0 {
		o.MaxOtherEvents = d.MaxOtherEvents
	}
	if o.MaxRunningCalls <= 0 {
		o.MaxRunningCalls = d.MaxRunningCalls
	}
	if o.IdleRunningCalls <= 0 {
		o.IdleRunningCalls = d.IdleRunningCalls
	}
	return &Store{
		opts:    o,
		calls:   newKeyIndex(),
		seen:    NewSeenIDs(o.MaxSeenEventIDs),
		sources: make(map[sourceKey]*SourceState),
		gen:     1,
	}
}

// Version moves on every change; a reader compares it to skip rebuilding.
func (s *Store) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Snapshot returns a consistent, immutable view. Readers may keep it as long
// as they like without holding the store's lock.
func (s *Store) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last != nil && s.last.Version == s.version {
		return s.last
	}
	calls := make([]*Call, 0, len(s.order)-s.dead)
	for _, e := range s.order {
		if !e.dead {
			calls = append(calls, e.call)
		}
	}
	srcs := make([]SourceState, len(s.sourceOrder))
	for i, k := range s.sourceOrder {
		srcs[i] = *s.sources[k]
	}
	snap := &Snapshot{
		Version:    s.version,
		Calls:      calls,
		Sources:    srcs,
		Other:      s.other[:len(s.other):len(s.other)],
		Events:     s.events,
		Duplicates: s.duplicates,
		Evicted:    s.evicted,
		Warnings:   s.warnings,
	}
	s.gen++ // calls the snapshot holds are copied before their next change
	s.last = snap
	return snap
}

// Apply records one event. It returns false when the event was ignored as a
// duplicate (an event_id already applied). Events may arrive in any order.
func (s *Store) Apply(ev Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applyLocked(&ev)
}

// ApplyTakingNotes is Apply, then TakeNotes when the event was applied,
// under one hold of the lock (the hub does both for every event). A tool
// event gets its call's id (Event.Call), for the outputs to say.
func (s *Store) ApplyTakingNotes(ev *Event) (applied bool, notes []Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.applyLocked(ev) {
		return false, nil
	}
	notes, s.notes = s.notes, nil
	return true, notes
}

func (s *Store) applyLocked(ev *Event) bool {
	if ev.Kind == KindWire {
		return true // for recordings only: nothing to show, nothing to keep
	}
	if ev.EventID != "" {
		if !s.seen.Add(ev.EventID) {
			s.duplicates++
			return false
		}
	}
	s.version++
	s.events++
	src := s.source(ev.Source, ev.SourceName)
	src.Events++
	if ev.IsCallEvent() {
		defer s.boundRunning(ev.Time)
	}

	switch ev.Kind {
	case KindToolCall, KindToolProgress, KindToolResult, KindToolCancelled:
		src.AgentArea = src.AgentArea || ev.HasAgentAreaContext()
		src.Soat = src.Soat || len(ev.SoatContext) > 0
		s.applyCall(ev, src)
	case KindWarning:
		s.warnings++
		if ev.IsCallEvent() {
			s.applyCall(ev, src)
		} else {
			s.addOther(*ev)
		}
	case KindSourceStatus:
		if ev.State != "" {
			src.State = ev.State
			src.Detail = ev.Detail
			src.Changed = ev.Time
			if ev.State == StateReconnecting {
				src.Attempts++
			}
		}
		s.addOther(*ev)
	default:
		// task.status and pass-through events: kept, and shown on the
		// call they name if it is known (approval.* carry tool_call_id).
		if ev.TaskID != "" && ev.ToolCallID != "" {
			k := CallKey{keyIDs, ev.TaskID, ev.ToolCallID}
			if e := s.calls.get(k, s.calls.hash(k)); e != nil {
				c := s.mutable(e)
				k := keep(ev)
				c.appendTimeline(&k)
				c.Events++
			}
		}
		s.addOther(*ev)
	}
	return true
}

func (s *Store) source(source, name string) *SourceState {
	k := sourceKey{source, name}
	if st := s.lastSource; st != nil && st.Source == source && st.Name == name {
		return st // a source's events come in runs
	}
	st := s.sources[k]
	if st == nil {
		st = &SourceState{Source: source, Name: name, AgentArea: source == SourceFeed}
		s.sources[k] = st
		s.sourceOrder = append(s.sourceOrder, k)
		s.feedSeen = s.feedSeen || source == SourceFeed
	}
	s.lastSource = st
	return st
}

func (s *Store) addOther(ev Event) {
	if len(s.other) >= s.opts.MaxOtherEvents {
		// A new array: snapshots may still hold the old one.
		keep := s.opts.MaxOtherEvents / 2
		n := make([]Event, keep, s.opts.MaxOtherEvents)
		copy(n, s.other[len(s.other)-keep:])
		s.other = n
	}
	s.other = append(s.other, ev)
}

// mutable returns the entry's call, copied first if a snapshot may hold it.
func (s *Store) mutable(e *entry) *Call {
	if e.gen != s.gen {
		e.call = e.call.clone()
		e.gen = s.gen
	}
	return e.call
}

// EventKeys lists the join keys an event carries, most specific first: the
// store joins events into calls on them, and so does anything that must
// agree with it (the OpenTelemetry export).
func EventKeys(ev *Event, buf *[3]CallKey) []CallKey {
	ks := buf[:0]
	if ev.TaskID != "" && ev.ToolCallID != "" {
		ks = append(ks, CallKey{keyIDs, ev.TaskID, ev.ToolCallID})
	}
	if ev.IdempotencyKey != "" {
		ks = append(ks, CallKey{keyIdem, ev.IdempotencyKey, ""})
	}
	if ev.Exchange != "" {
		ks = append(ks, CallKey{keyExchange, ev.SourceName, ev.Exchange})
	}
	return ks
}

func (s *Store) applyCall(ev *Event, src *SourceState) {
	var buf [3]CallKey
	keys := EventKeys(ev, &buf)
	var found *entry
	var known [3]bool // keys[i] names a call already (looked up once)
	var hashes [3]uint64
	for i, k := range keys {
		if found != nil && found.hasKey(k) {
			// A live call's keys all name it (see hasKey): a call's later
			// events skip the map.
			known[i] = true
			continue
		}
		hashes[i] = s.calls.hash(k)
		e := s.calls.get(k, hashes[i])
		known[i] = e != nil
		if e == nil || e == found {
			continue
		}
		if found == nil {
			found = e
		} else {
			found = s.merge(found, e)
		}
	}
	if found == nil {
		if len(keys) == 0 {
			// Nothing to join on: keep it visible rather than drop it.
			s.addOther(*ev)
			return
		}
		found = s.newCall(ev)
		src.Calls++
	}
	c := s.mutable(found)
	for i, k := range keys {
		if !known[i] { // merging moves only keys that were known
			s.calls.put(k, hashes[i], found, found.addKey(k, hashes[i]))
		}
	}
	if len(c.Sources) == 0 {
		c.Sources = s.sourceNames(ev.SourceName)
	}
	wasFinished := found.finished
	ev.Call = c.ID
	c.apply(ev)
	found.finished = c.Finished()
	switch {
	case found.finished && !wasFinished:
		s.nFin++
		if !found.queued {
			found.queued = true
			s.finished = append(s.finished, found)
		}
		s.evict()
	case !found.finished && wasFinished:
		s.nFin--
		s.queueRunning(found)
	}
}

func (s *Store) newCall(ev *Event) *entry {
	c := &Call{
		FirstSeen: ev.Time,
		Status:    StatusRunning,
		// A tap alone reports a call and its result; with a feed's, four
		// events (an Event is over 600 bytes, and the timeline is retained).
		firstTimeline: s.timelineStart(),
	}
	switch {
	case ev.TaskID != "" && ev.ToolCallID != "":
		c.ID = ev.TaskID + "/" + ev.ToolCallID
	case ev.Exchange != "":
		c.ID = ev.SourceName + "#" + ev.Exchange
	default:
		c.ID = ev.IdempotencyKey
	}
	e := &entry{call: c, gen: s.gen}
	s.order = append(s.order, e)
	s.queueRunning(e)
	return e
}

func (s *Store) timelineStart() uint8 {
	if s.feedSeen {
		return 4
	}
	return 2
}

// sourceNames is a one-name Sources for a new call: calls of one source
// share its array (append-only, so a call seen by a second source gets an
// array of its own), one allocation and one retained object less a call.
func (s *Store) sourceNames(name string) []string {
	if len(s.names) != 1 || s.names[0] != name {
		s.names = []string{name}
	}
	return s.names[:1:1]
}
