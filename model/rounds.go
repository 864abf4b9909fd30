package model

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// ResultInputRequired is the resultType of an answer that asks the client
// for input before the call can go on (MCP 2026-07-28).
const ResultInputRequired = "input_required"

// Round is one round of a multi-round call: a request, and the server's
// answer to it, which either asks the client for input (the call goes on
// in a next round, the same call sent again with the answers) or ends the
// call.
type Round struct {
	N         int
	RequestID string
	Started   time.Time // the round's request was seen
	Ended     time.Time // the server answered it (zero while it runs)
	// Answers are the client's inputResponses this round's request
	// carried (nil on round 1), redacted as arguments are.
	Answers json.RawMessage
	// Asked is what the server's input_required answer asked; AskedInput
	// says it asked (an empty Asked is a server shedding load).
	Asked      []InputRequest
	AskedInput bool
}

// Rounds counts the rounds of the call's latest attempt so far: 1 for a
// call that never asked for input (and for one waiting after its first).
func (c *Call) Rounds() int {
	if a := c.LastAttempt(); a != nil && len(a.Rounds) > 1 {
		return len(a.Rounds)
	}
	return 1
}

// MultiRound says whether the call's server has asked for input: a call of
// more than one round (its next may not have come yet).
func (c *Call) MultiRound() bool {
	a := c.LastAttempt()
	return a != nil && len(a.Rounds) > 0
}

// RoundTimes splits a multi-round call's time: what the server took to
// answer its rounds, and how long it waited for the client's input
// between them (up to now while it waits).
func (c *Call) RoundTimes(now time.Time) (server, waiting time.Duration) {
	a := c.LastAttempt()
	if a == nil {
		return 0, 0
	}
	for i, r := range a.Rounds {
		end := r.Ended
		if end.IsZero() {
			end = now
			if !c.Ended.IsZero() {
				end = c.Ended
			}
		}
		server += max(end.Sub(r.Started), 0)
		if i > 0 && !a.Rounds[i-1].Ended.IsZero() {
			waiting += max(r.Started.Sub(a.Rounds[i-1].Ended), 0)
		}
	}
	if c.Status == StatusNeedsInput {
		waiting += max(now.Sub(a.Rounds[len(a.Rounds)-1].Ended), 0)
	}
	return server, waiting
}

// AskedSummary says in a few words what the call's latest round asked the
// client ("confirm: Deploy to prod?", "sampling", "roots"), sanitised.
func AskedSummary(c *Call) string {
	a := c.LastAttempt()
	if a == nil || len(a.Rounds) == 0 {
		return ""
	}
	return a.Rounds[len(a.Rounds)-1].AskedSummary()
}

// AskedSummary says in a few words what the round's answer asked the
// client, sanitised.
func (r *Round) AskedSummary() string {
	if len(r.Asked) == 0 {
		return "nothing: the server is busy, retry later"
	}
	parts := make([]string, 0, len(r.Asked))
	for _, ir := range r.Asked {
		parts = append(parts, ir.Summary())
	}
	return Truncate(Sanitize(strings.Join(parts, "; ")), 160)
}

// AnswersSummary says in a few words what the client answered in the
// round's request: each answer's action ("accept", "decline", "cancel"),
// or what it is when it has none (a sampling's message, the roots),
// sanitised.
func (r *Round) AnswersSummary() string {
	var answers map[string]json.RawMessage
	if json.Unmarshal(r.Answers, &answers) != nil || len(answers) == 0 {
		return ""
	}
	keys := make([]string, 0, len(answers))
	for k := range answers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		var answer struct {
			Action  string          `json:"action"`
			Content json.RawMessage `json:"content"`
			Roots   json.RawMessage `json:"roots"`
		}
		_ = json.Unmarshal(answers[k], &answer) // an answer that is no object is said as one
		what := "an answer"
		switch {
		case answer.Action != "":
			what = answer.Action
		case answer.Roots != nil:
			what = "its roots"
		case answer.Content != nil:
			what = "a message"
		}
		parts = append(parts, what)
	}
	return Truncate(Sanitize(strings.Join(parts, "; ")), 160)
}

// waitCause is why a call waits: what its latest round asked, and what of
// the rounds' rules it breaks that keeps the call from going on.
func waitCause(c *Call) string {
	round := int32(c.Rounds())
	var cause string
	for i := range c.Warnings {
		w := &c.Warnings[i]
		if w.Round != round && !(round == 1 && w.Round == 0) {
			continue
		}
		switch WarningCode(w.Code) {
		case WarnInputRequiredEmpty:
			return "asked nothing and gave no requestState: the call cannot go on"
		case WarnInputCapabilityUndeclared:
			cause = ", which the client did not declare it can answer"
		case WarnRequestStateNotReturned:
			cause = cmp.Or(cause, " again: the client did not carry back the requestState")
		}
	}
	return "asked " + AskedSummary(c) + cause
}

// Summary is the input request in a few words: its kind and message.
func (ir InputRequest) Summary() string {
	kind := ir.Method
	switch ir.Method {
	case InputElicit:
		kind = "elicitation"
	case InputSample:
		kind = "sampling"
	case InputRoots:
		return "roots"
	}
	switch {
	case ir.Message != "":
		return kind + ": " + ir.Message
	case ir.URL != "":
		return kind + ": " + ir.URL
	}
	return kind
}

// TimedElapsed is the part of the call its timeout counts: the whole call,
// or for a multi-round call its latest round (each round is a request of
// its own; the wait for the client's input is nobody's timeout). 0 while
// it waits for input.
func (c *Call) TimedElapsed(now time.Time) time.Duration {
	a := c.LastAttempt()
	if a == nil || len(a.Rounds) == 0 {
		return c.Elapsed(now)
	}
	if c.Status == StatusNeedsInput {
		return 0
	}
	r := a.Rounds[len(a.Rounds)-1]
	end := r.Ended
	if end.IsZero() {
		end = now
	}
	return max(end.Sub(r.Started), 0)
}

// waitsForInput says whether the attempt's last round was answered with a
// request for input and no next round has come yet.
func (a *Attempt) waitsForInput() bool {
	if a.HasResult || len(a.Rounds) == 0 {
		return false
	}
	last := &a.Rounds[len(a.Rounds)-1]
	return last.AskedInput && !last.Ended.IsZero()
}

// round is round n of the attempt, made (with the rounds before it) when
// new; round 1 starts with the attempt.
func (a *Attempt) round(n int) *Round {
	n = min(max(n, 1), MaxAttempts*4)
	for len(a.Rounds) < n {
		r := Round{N: len(a.Rounds) + 1}
		if r.N == 1 {
			r.Started, r.RequestID = a.Started, a.RequestID
		}
		a.Rounds = append(a.Rounds, r)
	}
	return &a.Rounds[n-1]
}

// applyRoundCall records a later round's request: the same call sent again
// with the client's answers.
func (c *Call) applyRoundCall(a *Attempt, ev *Event) {
	r := a.round(int(ev.Round))
	if r.Started.IsZero() || ev.Time.Before(r.Started) {
		r.Started = ev.Time
	}
	if ev.RequestID != "" {
		r.RequestID = ev.RequestID
	}
	if len(ev.InputResponses) > 0 {
		r.Answers = ev.InputResponses
	}
}

// applyInputRequired records an answer that asks the client for input: the
// round ends, the call does not.
func (c *Call) applyInputRequired(ev *Event) {
	a := c.attemptFor(ev)
	r := a.round(int(ev.Round))
	if r.Ended.IsZero() || ev.Time.Before(r.Ended) {
		r.Ended = ev.Time
	}
	r.AskedInput = true
	if len(ev.InputRequests) > 0 {
		r.Asked = ev.InputRequests
	}
}

// endRound records the answer that ended a multi-round call.
func (a *Attempt) endRound(ev *Event) {
	if len(a.Rounds) == 0 && ev.Round < 2 {
		return
	}
	r := a.round(int(ev.Round))
	if r.Ended.IsZero() || ev.Time.Before(r.Ended) {
		r.Ended = ev.Time
	}
}
