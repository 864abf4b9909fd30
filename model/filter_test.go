package model

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func filterCalls() []*Call {
	return []*Call{
		{ID: "t1/call_a", TaskID: "t1", ToolCallID: "call_a", Tool: "get_order", Status: StatusOK, Sources: []string{"tap"},
			Arguments: json.RawMessage(`{"orderId":"A-17"}`), Context: &Context{Present: true, Verdict: VerdictValid},
			Attempts: []Attempt{{N: 1, Exchange: "1", SourceName: "tap"}}},
		{ID: "t1/call_b", TaskID: "t1", ToolCallID: "call_b", Tool: "read_workbook", Status: StatusError, Sources: []string{"feed t1"},
			Flags: FlagRetried | FlagWarning, Context: &Context{Present: true, Verdict: VerdictRejected, HTTPStatus: 401},
			timeline: []timelineEvent{{Event: Event{Source: SourceFeed}}}},
		{ID: "t2/call_c", TaskID: "t2", ToolCallID: "call_c", Tool: "export_ledger", Status: StatusCancelled,
			Attempts: []Attempt{{N: 1, Cancelled: "MCP tool call timed out"}}},
	}
}

func matching(q string) string {
	f := ParseFilter(q)
	var ids []string
	snap := &Snapshot{Calls: filterCalls()}
	for _, c := range snap.Calls {
		if f.Match(snap, c) {
			ids = append(ids, c.ToolCallID)
		}
	}
	return strings.Join(ids, ",")
}

// TestFilterMatches: every field, negation, lists of values, plain text
// over arguments and cancel reasons.
func TestFilterMatches(t *testing.T) {
	for q, want := range map[string]string{
		"":                        "call_a,call_b,call_c",
		"tool:ORDER":              "call_a",
		"task:t2":                 "call_c",
		"status:err,cancel":       "call_b,call_c",
		"-status:ok":              "call_b,call_c",
		"source:feed":             "call_b",
		"source:tap":              "call_a",
		"flag:attempt":            "call_b",
		"flag:retry":              "call_b",
		"flag:rejected":           "call_b",
		"flag:valid,unverified":   "call_a",
		"a-17":                    "call_a",
		"timed out":               "call_c",
		"tool:get -a-17":          "",
		"flag:warning status:err": "call_b",
	} {
		if got := matching(q); got != want {
			t.Errorf("%q: got %q, want %q", q, got, want)
		}
	}
}

// TestFilterProblemsSayWhatIsValid: an unknown field, status or flag is a
// problem naming what would have been understood; look-alikes are not.
func TestFilterProblemsSayWhatIsValid(t *testing.T) {
	for q, want := range map[string]string{
		"bogus:x":       "no field bogus: (fields: tool task status source flag)",
		"status:nope":   "no status nope (status: ok error running needs-input cancelled late)",
		"flag:whatever": "no flag whatever (flag: attempt replayed valid rejected",
	} {
		f := ParseFilter(q)
		if len(f.Problems) != 1 || !strings.HasPrefix(f.Problems[0].Error(), want) {
			t.Errorf("%q: problems %v, want one starting %q", q, f.Problems, want)
		}
	}
	for _, fine := range []string{"status:err", "flag:replayed", "flag:no-token", "INV:2291", "http://x", "tool:"} {
		if f := ParseFilter(fine); len(f.Problems) > 0 {
			t.Errorf("%q: unexpected problems %v", fine, f.Problems)
		}
	}
	if !slices.Contains(FilterFlagNames, "pii") || slices.Contains(FilterFlagNames, "retry") {
		t.Errorf("FilterFlagNames lists the canonical names only: %v", FilterFlagNames)
	}
}

// TestFilterNoTokenIsNotPlainMCP: flag:no-token finds a call without a
// token where the source carries tokens, never a plain MCP call, even one
// an older recording says is "absent".
func TestFilterNoTokenIsNotPlainMCP(t *testing.T) {
	absent := func(id, source string) *Call {
		return &Call{ID: id, Tool: "t", Sources: []string{source}, Context: &Context{Verdict: VerdictAbsent}}
	}
	snap := &Snapshot{
		Calls:   []*Call{absent("plain#1", "tap:plain"), absent("aa#2", "tap:aa"), {ID: "plain#3", Tool: "t", Sources: []string{"tap:plain"}}},
		Sources: []SourceState{{Name: "tap:plain"}, {Name: "tap:aa", AgentArea: true}},
	}
	for q, want := range map[string]string{"flag:no-token": "aa#2", "flag:absent": "aa#2", "-flag:no-token": "plain#1,plain#3"} {
		f := ParseFilter(q)
		var ids []string
		for _, c := range snap.Calls {
			if f.Match(snap, c) {
				ids = append(ids, c.ID)
			}
		}
		if got := strings.Join(ids, ","); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
}
