package decoder

import (
	"testing"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/token"
	"toolscope/model"
)

// A call built as the platform builds it verifies, and carries every key
// the contract says is always sent.
func TestPlatformCallVerifies(t *testing.T) {
	secret := []byte("platformcall-test-secret-0123456789abcdef")
	cc := CallContext{TaskID: "t-1", ToolCallID: "call_1", WorkspaceID: "w-1", AgentID: "a-1",
		EndUserID: "u-1", Metadata: map[string]any{"chatId": "c-9"}}
	meta := PlatformMeta(cc, 7)
	now := time.Now()
	tok, err := token.Sign(token.Claims("inst-1", "get_order", meta, now), secret)
	if err != nil {
		t.Fatal(err)
	}
	c, ws := token.Verify(token.Input{Token: tok, Secrets: [][]byte{secret}, InstanceID: "inst-1", ToolName: "get_order",
		Meta: meta, CredentialPresent: true, Now: now})
	if c.Verdict != model.VerdictValid || len(ws) != 0 {
		t.Fatalf("verdict %s (%s), warnings %v", c.Verdict, c.Reason, ws)
	}
	if got := callRules(callRulesInput{ToolName: "get_order", Meta: meta, ProgressToken: true, TokenPresent: true, Claims: c.Claims}); len(got) != 0 {
		t.Errorf("contract rule warnings on the platform's own call: %v", got)
	}
	if meta[jsonrpc.MetaIdempotencyKey] != "t-1:call_1" || meta[jsonrpc.MetaProgressToken] != int64(7) || meta[jsonrpc.MetaProtocolVersion] != MCPStateless {
		t.Errorf("meta = %v", meta)
	}
	if _, ok := PlatformMeta(CallContext{TaskID: "t"}, 1)[jsonrpc.MetaAgentID]; ok {
		t.Error("agent_id sent though unknown")
	}
	h := PlatformHeaders(jsonrpc.MethodToolsCall, "get_order")
	if h.Get(HeaderMethod) != jsonrpc.MethodToolsCall || h.Get(HeaderName) != "get_order" || h.Get(HeaderProtocolVersion) != MCPStateless {
		t.Errorf("headers = %v", h)
	}
}
