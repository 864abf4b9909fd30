package ui

import (
	"sort"
	"strings"
	"time"
	"unicode"

	"toolscope/model"
)

// The task view groups the calls by task: one row a task, with its state
// (from the feed's task.* events, else from its calls), the call running
// now, and its counts. Calls without a task id (a tap alone, plain MCP)
// are grouped by the source that saw them.

// Task states, as the task view shows them.
const (
	taskRunning   = "running"
	taskCompleted = "completed"
	taskFailed    = "failed"
	taskCancelled = "cancelled"
	taskWaiting   = "waiting" // awaiting a follow-up or a continuation
	taskIdle      = "idle"    // no task event, and no call running
)

// taskRow is one task and what its calls add up to.
type taskRow struct {
	key      string // taskKey of its calls
	id       string // the task id; "" for calls without one
	source   string // the feed (or tap) that reported it
	fromFeed bool   // source is a feed: no call can name a better one
	state    string
	// said is the latest task.* event's message and reason.
	said        string
	first, last time.Time

	calls, running, done, failed, warnings int
	// now is the running call updated last, else the call seen last.
	now *model.Call
}

// taskKey groups a call: its task id, or the source that saw a call
// without one (a prefix no task id has).
func taskKey(c *model.Call) string {
	if c.TaskID != "" {
		return c.TaskID
	}
	if len(c.Sources) > 0 {
		return noTaskPrefix + c.Sources[0]
	}
	return noTaskPrefix
}

const noTaskPrefix = "\x00"

// taskScopeLabel names a task key for the footer: "task 6f1c2a9e", or the
// source of calls without a task.
func taskScopeLabel(key string) string {
	if src, ok := strings.CutPrefix(key, noTaskPrefix); ok {
		return "no task · " + model.Sanitize(src)
	}
	return "task " + model.ShortID(key)
}

// taskStatus is the latest task.* event of a task.
type taskStatus struct {
	at     time.Time
	state  string
	said   string
	source string
	first  time.Time
}

// taskIndex builds the task rows from snapshots. It remembers each task's
// latest task.* event across snapshots: the store keeps a bounded number
// of such events, and a busy session pushes old ones out.
type taskIndex struct {
	status map[string]*taskStatus
	rows   []*taskRow
	byKey  map[string]*taskRow
}

// build groups the snapshot's calls into task rows, in the order the tasks
// were first seen.
func (x *taskIndex) build(snap *model.Snapshot) {
	if x.status == nil {
		x.status = make(map[string]*taskStatus)
	}
	for i := range snap.Other {
		e := &snap.Other[i]
		if e.Kind != model.KindTaskStatus || e.TaskID == "" {
			continue
		}
		s := x.status[e.TaskID]
		if s == nil {
			s = &taskStatus{first: e.Time, source: e.SourceName}
			x.status[e.TaskID] = s
		}
		if e.Time.Before(s.first) {
			s.first = e.Time
		}
		if !e.Time.Before(s.at) {
			s.at, s.state, s.said = e.Time, taskState(e.EventType), taskSaid(e)
		}
	}
	x.byKey = make(map[string]*taskRow, len(x.status))
	x.rows = x.rows[:0]
	row := func(key string, at time.Time) *taskRow {
		r := x.byKey[key]
		if r == nil {
			r = &taskRow{key: key, first: at}
			if !strings.HasPrefix(key, noTaskPrefix) {
				r.id = key
			}
			x.byKey[key] = r
			x.rows = append(x.rows, r)
		}
		return r
	}
	feeds := make(map[string]bool)
	for _, s := range snap.Sources {
		if s.Source == model.SourceFeed {
			feeds[s.Name] = true
		}
	}
	for _, c := range snap.Calls {
		r := row(taskKey(c), c.FirstSeen)
		r.calls++
		r.warnings += len(c.Warnings)
		if !r.fromFeed {
			r.source = reporter(c, feeds)
			r.fromFeed = feeds[r.source]
		}
		if c.LastUpdate.After(r.last) {
			r.last = c.LastUpdate
		}
		switch c.Status {
		case model.StatusRunning:
			r.running++
			if r.now == nil || r.now.Status != model.StatusRunning || c.LastUpdate.After(r.now.LastUpdate) {
				r.now = c
			}
		case model.StatusNeedsInput: // under way: waiting for the client's input
			r.running++
			if r.now == nil || r.now.Finished() {
				r.now = c
			}
		case model.StatusOK:
			r.done++
		default:
			r.done++
			r.failed++
		}
		if r.now == nil || r.now.Finished() && !c.FirstSeen.Before(r.now.FirstSeen) {
			r.now = c
		}
	}
	for id, s := range x.status {
		r := row(id, s.first)
		if s.first.Before(r.first) {
			r.first = s.first
		}
		if s.at.After(r.last) {
			r.last = s.at
		}
		r.state, r.said = s.state, s.said
		if s.source != "" {
			r.source = s.source // the feed of the task, not a tap that saw a call
		}
	}
	for _, r := range x.rows {
		if r.state == "" {
			r.state = taskIdle
			if r.running > 0 {
				r.state = taskRunning
			}
		}
	}
	sort.SliceStable(x.rows, func(i, j int) bool {
		a, b := x.rows[i], x.rows[j]
		if !a.first.Equal(b.first) {
			return a.first.Before(b.first)
		}
		return a.key < b.key
	})
}

// reporter is the source to name a call's task by: a feed that saw it
// (the task's own), else the first source that did.
func reporter(c *model.Call, feeds map[string]bool) string {
	for _, name := range c.Sources {
		if feeds[name] {
			return name
		}
	}
	if len(c.Sources) > 0 {
		return c.Sources[0]
	}
	return ""
}

// taskState reads a task.* event type, in today's dotted names and the
// older CamelCase ones (TaskCompleted, task_failed, workflow_completed).
func taskState(eventType string) string {
	norm := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, eventType)
	norm = strings.TrimPrefix(strings.TrimPrefix(norm, "task"), "workflow")
	switch norm {
	case "completed", "finished":
		return taskCompleted
	case "failed":
		return taskFailed
	case "cancelled", "canceled":
		return taskCancelled
	case "awaitingfollowup", "awaitingcontinuation":
		return taskWaiting
	}
	return taskRunning
}

// taskSaid is a task event's message, with its reason when it has one.
func taskSaid(e *model.Event) string {
	s := e.Message
	if e.Reason != "" && !strings.Contains(s, e.Reason) {
		if s != "" {
			s += ": "
		}
		s += e.Reason
	}
	return s
}

// counts of the task rows by state, for the view's title.
func (x *taskIndex) counts() map[string]int {
	n := make(map[string]int, 6)
	for _, r := range x.rows {
		n[r.state]++
	}
	return n
}
