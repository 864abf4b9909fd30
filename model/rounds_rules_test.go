package model

import (
	"strings"
	"testing"
	"time"
)

// A call waiting on a round that breaks the rounds' rules says why it
// cannot go on on its row, and explain_call says what to do.
func TestRoundRulesCauseAndExplain(t *testing.T) {
	at := time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)
	warned := func(code WarningCode, msg string) *Call {
		evs := multiRound(at)[:2]
		w := evs[1]
		w.Kind, w.Code, w.Message = KindWarning, string(code), msg
		w.InputRequests, w.ResultType = nil, ""
		evs = append(evs, w)
		s := NewStore(Options{})
		for i := range evs {
			s.ApplyTakingNotes(&evs[i])
		}
		return s.Snapshot().Calls[0]
	}
	for _, tc := range []struct {
		code      WarningCode
		cause     string
		mustStart string
	}{
		{WarnInputRequiredEmpty, "asked nothing and gave no requestState: the call cannot go on", "the server must give"},
		{WarnInputCapabilityUndeclared, "asked elicitation: Deploy to prod?, which the client did not declare it can answer", "the server must ask only"},
		{WarnRequestStateNotReturned, "asked elicitation: Deploy to prod? again: the client did not carry back the requestState", "the client must send the requestState"},
	} {
		c := warned(tc.code, "said by the judgment")
		if c.Status != StatusNeedsInput || c.Cause(at) != tc.cause {
			t.Errorf("%s: %s, cause %q, want %q", tc.code, c.Status, c.Cause(at), tc.cause)
		}
		var found bool
		for _, f := range Explain(c, at.Add(time.Second)).Findings {
			if f.Code == string(tc.code) {
				found = strings.HasPrefix(f.Must, tc.mustStart) && strings.Contains(f.Rule, "multi-round") && strings.HasSuffix(f.What, "said by the judgment")
			}
		}
		if !found {
			t.Errorf("%s: explain lacks it: %+v", tc.code, Explain(c, at).Findings)
		}
	}
}
