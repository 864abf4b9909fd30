package model

import "strings"

// An agent-facing tool name is mcp__<server>__<tool>: what a feed reports
// (the model's view), while a tap sees the server's raw name. The decoder
// builds it (with the contract's label and length rules); the store, the
// screen and the exporters take it apart; all through these three.
const (
	agentNamePrefix = "mcp__"
	agentNameSep    = "__"
)

// AgentName joins an already-labelled server and tool into the agent-facing
// name (no cutting: decoder.QualifiedName applies the length rule).
func AgentName(server, tool string) string {
	return agentNamePrefix + server + agentNameSep + tool
}

// HasAgentPrefix says whether name starts like an agent-facing name.
func HasAgentPrefix(name string) bool { return strings.HasPrefix(name, agentNamePrefix) }

// SplitAgentName takes an agent-facing name apart; ok is false when name is
// not mcp__<server>__<tool> (tool may come out empty).
func SplitAgentName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, agentNamePrefix)
	if !ok {
		return "", "", false
	}
	if server, tool, ok = strings.Cut(rest, agentNameSep); !ok {
		return "", "", false
	}
	return server, tool, true
}
