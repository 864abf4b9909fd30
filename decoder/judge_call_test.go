package decoder

import "testing"

// A plain MCP call owes none of the context rules; a call with a token
// owes them all.
func TestCallRuleWarningsPlainCall(t *testing.T) {
	ws := callRules(callRulesInput{ToolName: "get_order", SessionID: "s-1"})
	if len(ws) != 0 {
		t.Fatalf("plain call: %v", ws)
	}
	ws = callRules(callRulesInput{ToolName: "get_order", TokenPresent: true, Meta: map[string]any{}})
	codes := map[string]bool{}
	for _, w := range ws {
		codes[string(w.Code)] = true
	}
	if !codes["meta_key_missing"] || !codes["progress_token_missing"] || codes["claim_missing"] {
		t.Fatalf("token without _meta and unreadable claims: %v", ws)
	}
}
