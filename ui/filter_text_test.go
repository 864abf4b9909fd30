package ui

import (
	"strings"
	"testing"

	"toolscope/model"
)

// TestFilterFindsShownText: plain text finds what the screen shows of a
// call beyond its name: arguments, result text, error text, cancel reason.
func TestFilterFindsShownText(t *testing.T) {
	store := fixtureStore()
	cases := []struct {
		query string
		want  string // tool_call_ids
	}{
		{"a-17", "call_abc"},         // an argument
		{"ch_3pq", "call_stu"},       // result text
		{"stopped", "call_mno"},      // cancel reason
		{"-a-17 tool:get_order", ""}, // negated
	}
	for _, c := range cases {
		m := sized(store, testOptions(nil))
		send(m, keyMsgs("/", c.query, "<enter>")...)
		var got []string
		for _, r := range m.table.rows {
			got = append(got, r.ToolCallID)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%q: got %q, want %q", c.query, got, c.want)
		}
	}
}

// TestFilterSaysWhatIsUnknown: a field, status or flag that does not exist
// is said in the filter line, while typing and once applied.
func TestFilterSaysWhatIsUnknown(t *testing.T) {
	for query, want := range map[string]string{
		"bogus:x":       "no field bogus:",
		"status:nope":   "no status nope",
		"flag:whatever": "no flag whatever",
	} {
		m := sized(fixtureStore(), testOptions(nil))
		send(m, keyMsgs("/", query)...)
		if v := m.View(); !strings.Contains(v, want) {
			t.Errorf("typing %q: the filter line lacks %q:\n%s", query, want, lastLine(v))
		}
		send(m, keyMsgs("<enter>")...)
		if v := m.View(); !strings.Contains(v, want) {
			t.Errorf("%q applied: the footer lacks %q:\n%s", query, want, lastLine(v))
		}
	}
	for _, fine := range []string{"status:err", "flag:replayed", "INV:2291", "http://x"} {
		if q := model.ParseFilter(fine); len(q.Problems) > 0 {
			t.Errorf("%q: unexpected problems %v", fine, q.Problems)
		}
	}
}

func lastLine(s string) string { return s[strings.LastIndex(s, "\n")+1:] }
