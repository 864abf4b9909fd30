package decoder

import (
	"fmt"
	"strings"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// callRulesInput is what the contract's per-call rules read of one
// tools/call (beyond what Verify checks).
type callRulesInput struct {
	ToolName      string
	Meta          map[string]any // the agentarea/* keys of params._meta
	ProgressToken bool           // _meta has a progressToken
	TokenPresent  bool           // the client sent a context token
	Claims        map[string]any // the token's claims, nil when unreadable or absent
	SessionID     string         // the Mcp-Session-Id header
}

// requiredContextKeys are the context keys AgentArea always sends, in _meta
// (with the agentarea/ prefix) and as claims.
var requiredContextKeys = []string{"task_id", "tool_call_id", "workspace_id", "idempotency_key"}

// requiredClaims are the claims a platform token always has beyond iss,
// aud, iat and exp (which Verify checks).
var requiredClaims = append(requiredContextKeys[:len(requiredContextKeys):len(requiredContextKeys)], "jti")

// callRules checks a tools/call against the contract's rules that
// concern one call: the keys and claims AgentArea always sends (and
// progressToken), no MCP session on a platform call (AgentArea opens a new
// connection per call), and the server's own tool name in params.name. The
// context rules apply only to a call that carries AgentArea context (a token
// or agentarea/* keys); a plain MCP call owes none of them.
func callRules(in callRulesInput) []model.Warning {
	var ws []model.Warning
	if _, _, ok := model.SplitAgentName(in.ToolName); ok {
		ws = append(ws, model.Warning{Code: model.WarnToolNameQualified, Message: fmt.Sprintf(
			"params.name %q looks like the agent-facing mcp__<server>__<tool> name; a server receives its own raw tool name", model.Truncate(in.ToolName, 80))})
	}
	if !in.TokenPresent && len(in.Meta) == 0 {
		return ws
	}
	if in.SessionID != "" {
		ws = append(ws, model.Warning{Code: model.WarnSessionOnContextCall, Message: "a tools/call with AgentArea context carries Mcp-Session-Id; " +
			"the platform opens a new connection per call and reuses no MCP session"})
	}
	var missing []string
	for _, k := range requiredContextKeys {
		if _, ok := in.Meta[jsonrpc.AgentAreaPrefix+k]; !ok {
			missing = append(missing, jsonrpc.AgentAreaPrefix+k)
		}
	}
	if len(missing) > 0 {
		ws = append(ws, model.Warning{Code: model.WarnMetaKeyMissing, Message: "_meta lacks " + strings.Join(missing, ", ") + ", which AgentArea always sends"})
	}
	if !in.ProgressToken {
		ws = append(ws, model.Warning{Code: model.WarnProgressTokenMissing, Message: "_meta has no progressToken; AgentArea sets one on every call"})
	}
	if in.Claims != nil {
		missing = missing[:0]
		for _, k := range requiredClaims {
			if _, ok := in.Claims[k]; !ok {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			ws = append(ws, model.Warning{Code: model.WarnClaimMissing, Message: "the token lacks the claim " + strings.Join(missing, ", ") + ", which AgentArea always sets"})
		}
	}
	return ws
}
