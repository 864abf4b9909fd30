package model

import (
	"strings"
	"testing"
	"time"
)

// multiRound is the events of a call whose server asks the client to
// confirm once: round 1 answered input_required, round 2 complete.
func multiRound(at time.Time) []Event {
	base := Event{Source: SourceTap, SourceName: "tap:orders", Tool: "deploy", Exchange: "2"}
	ev := func(ms int, kind Kind, f func(*Event)) Event {
		e := base
		e.Time, e.Kind = at.Add(time.Duration(ms)*time.Millisecond), kind
		f(&e)
		return e
	}
	return []Event{
		ev(0, KindToolCall, func(e *Event) { e.RequestID, e.Arguments = "5", []byte(`{"env":"prod"}`) }),
		ev(40, KindToolResult, func(e *Event) {
			e.RequestID, e.Round, e.ResultType = "5", 1, ResultInputRequired
			e.InputRequests = []InputRequest{{ID: "confirm", Method: InputElicit, Message: "Deploy to prod?", RequestedSchema: []byte(`{"type":"object"}`)}}
		}),
		ev(1040, KindToolCall, func(e *Event) {
			e.RequestID, e.Round, e.Arguments = "6", 2, []byte(`{"env":"prod"}`)
			e.InputResponses = []byte(`{"confirm":{"action":"accept"}}`)
		}),
		ev(1100, KindToolResult, func(e *Event) { e.RequestID, e.Round, e.ResultType, e.TextChars = "6", 2, "complete", 8 }),
	}
}

func TestMultiRoundCallIsOneCall(t *testing.T) {
	at := time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)
	s := NewStore(Options{})
	evs := multiRound(at)
	wantStatus := []Status{StatusRunning, StatusNeedsInput, StatusRunning, StatusOK}
	for i := range evs {
		applied, _ := s.ApplyTakingNotes(&evs[i])
		if !applied || evs[i].Call != "tap:orders#2" {
			t.Fatalf("event %d: applied %v, call %q", i, applied, evs[i].Call)
		}
		snap := s.Snapshot()
		if len(snap.Calls) != 1 {
			t.Fatalf("event %d: %d calls, want the rounds joined into one", i, len(snap.Calls))
		}
		c := snap.Calls[0]
		if c.Status != wantStatus[i] {
			t.Fatalf("event %d: status %q, want %q", i, c.Status, wantStatus[i])
		}
		if got := c.Finished(); got != (i == 3) {
			t.Fatalf("event %d: finished %v", i, got)
		}
	}
	c := s.Snapshot().Calls[0]
	if c.Rounds() != 2 || len(c.Attempts) != 1 || c.Flags&FlagRetried != 0 {
		t.Fatalf("rounds %d, attempts %d, flags %b", c.Rounds(), len(c.Attempts), c.Flags)
	}
	a := c.Attempts[0]
	r1, r2 := a.Rounds[0], a.Rounds[1]
	if r1.RequestID != "5" || !r1.AskedInput || len(r1.Asked) != 1 || r1.Asked[0].Message != "Deploy to prod?" {
		t.Fatalf("round 1: %+v", r1)
	}
	if r2.RequestID != "6" || string(r2.Answers) != `{"confirm":{"action":"accept"}}` || r2.Ended.IsZero() || a.RequestID != "5" {
		t.Fatalf("round 2: %+v (attempt's request id %q)", r2, a.RequestID)
	}
	server, waiting := c.RoundTimes(at.Add(time.Hour))
	if server != 100*time.Millisecond || waiting != time.Second {
		t.Fatalf("server %v, waiting %v; want 100ms and 1s", server, waiting)
	}
	if c.Elapsed(at) != 1100*time.Millisecond {
		t.Fatalf("elapsed %v", c.Elapsed(at))
	}
}

// While the call waits for the client, the waiting time grows and the
// call is not finished: the store never evicts it as one.
func TestNeedsInputWaits(t *testing.T) {
	at := time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)
	s := NewStore(Options{})
	for _, ev := range multiRound(at)[:2] {
		s.Apply(ev)
	}
	c := s.Snapshot().Calls[0]
	if c.Status != StatusNeedsInput || c.Rounds() != 1 || !c.Ended.IsZero() {
		t.Fatalf("status %q, rounds %d, ended %v", c.Status, c.Rounds(), c.Ended)
	}
	server, waiting := c.RoundTimes(at.Add(540 * time.Millisecond))
	if server != 40*time.Millisecond || waiting != 500*time.Millisecond {
		t.Fatalf("server %v, waiting %v", server, waiting)
	}
	if f := ParseFilter("status:needs-input"); !f.Match(s.Snapshot(), c) || len(f.Problems) > 0 {
		t.Fatal("status:needs-input does not match a call waiting for input")
	}
}

// explain_call says what a waiting call asked and what the client must do.
func TestExplainNeedsInput(t *testing.T) {
	at := time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)
	s := NewStore(Options{})
	for _, ev := range multiRound(at)[:2] {
		s.Apply(ev)
	}
	c := s.Snapshot().Calls[0]
	x := Explain(c, at.Add(time.Second))
	if !strings.HasPrefix(x.Summary, "needs input for 1.0s: asked elicitation: Deploy to prod?") {
		t.Errorf("summary %q", x.Summary)
	}
	if len(x.Findings) == 0 || !strings.Contains(x.Findings[0].What, "waits for round 2") || !strings.Contains(x.Findings[0].Must, "requestState") {
		t.Errorf("findings %+v", x.Findings)
	}
}

// A call waiting for its user is not ended by toolscope at twice its
// timeout (the wait is nobody's timeout); only the idle bound applies.
func TestWaitingForInputIsNotStale(t *testing.T) {
	at := time.Now().Add(-time.Minute)
	s := NewStore(Options{})
	evs := multiRound(at)[:2]
	evs[0].TimeoutMS = 1000
	for _, ev := range evs {
		s.Apply(ev)
	}
	for i := range staleSweepEvery { // events of another call move the clock and sweep
		s.Apply(Event{Time: at.Add(30 * time.Second), Source: SourceTap, SourceName: "tap:other", Kind: KindWarning,
			Exchange: "9", Code: "x", Message: strings.Repeat("x", i%2)})
	}
	c := s.Snapshot().FindCall("tap:orders#2")
	if c == nil || c.Status != StatusNeedsInput {
		t.Fatalf("the waiting call was ended: %+v", c)
	}
	if c.TimedElapsed(at.Add(30*time.Second)) != 0 {
		t.Errorf("its timed part grows while it waits")
	}
}
