package model

import (
	"fmt"
	"testing"
)

// TestMetaAgainstClaims: each agentarea/* key against its claim (objects
// compared by value), keys no claim signs, claims no key mirrors.
func TestMetaAgainstClaims(t *testing.T) {
	c := &Call{
		meta: keep(&Event{Meta: map[string]any{"agentarea/task_id": "t1", "agentarea/tool_call_id": "c1", "agentarea/agent_id": "a9",
			"agentarea/metadata": map[string]any{"b": 1.0, "a": []any{"x"}}, "progressToken": 3.0}}).meta,
		Context: &Context{Claims: map[string]any{"task_id": "t1", "tool_call_id": "c2", "workspace_id": "w1",
			"metadata": map[string]any{"a": []any{"x"}, "b": 1.0}}},
	}
	var got []string
	for _, r := range c.MetaAgainstClaims() {
		got = append(got, r.Key+" "+r.Verdict)
	}
	want := "[agentarea/agent_id no_claim agentarea/metadata equal agentarea/task_id equal agentarea/tool_call_id differs progressToken not_signed agentarea/workspace_id no_key]"
	if fmt.Sprint(got) != want {
		t.Errorf("got  %v\nwant %s", got, want)
	}
	if (&Call{}).MetaAgainstClaims() != nil {
		t.Error("a call with neither _meta nor claims has rows")
	}
}
