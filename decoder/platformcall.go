package decoder

import (
	"net/http"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/token"
)

// What AgentArea sends on a tools/call, built here once so that every part
// of toolscope acting as the platform (the demo, probe) sends the same thing.

// CallContext is the task context one call carries (the _meta keys and the
// token's context claims).
type CallContext struct {
	TaskID, ToolCallID, WorkspaceID string
	AgentID, EndUserID              string         // "" when unknown or unset
	Metadata                        map[string]any // nil when unset
}

// PlatformMeta is a call's _meta as AgentArea sends it: the agentarea/*
// keys, the progress token (the request id) and the 2026-07-28 per-request
// protocol keys.
func PlatformMeta(c CallContext, requestID int64) map[string]any {
	m := map[string]any{
		jsonrpc.MetaProgressToken:                    requestID,
		jsonrpc.MetaProtocol:                         token.ProtocolMajor,
		jsonrpc.MetaTaskID:                           c.TaskID,
		jsonrpc.MetaToolCallID:                       c.ToolCallID,
		jsonrpc.MetaWorkspaceID:                      c.WorkspaceID,
		jsonrpc.MetaIdempotencyKey:                   c.TaskID + ":" + c.ToolCallID,
		jsonrpc.MetaProtocolVersion:                  MCPStateless,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "agentarea", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	if c.AgentID != "" {
		m[jsonrpc.MetaAgentID] = c.AgentID
	}
	if c.EndUserID != "" {
		m[jsonrpc.MetaEndUserID] = c.EndUserID
	}
	if c.Metadata != nil {
		m[jsonrpc.MetaMetadata] = c.Metadata
	}
	return m
}

// ProtocolMeta is the _meta every 2026-07-28 request of AgentArea's client
// carries (tools/list too): protocol version, client info and capabilities.
func ProtocolMeta() map[string]any {
	return map[string]any{
		jsonrpc.MetaProtocolVersion:                  MCPStateless,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "agentarea", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
}

// PlatformHeaders are the headers of AgentArea's 2026-07-28 POST of one
// JSON-RPC request (name is the Mcp-Name: the tool of a tools/call, or "").
// The static credential and the context token are the caller's to add.
func PlatformHeaders(method, name string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set(HeaderProtocolVersion, MCPStateless)
	h.Set(HeaderMethod, method)
	if name != "" {
		h.Set(HeaderName, name)
	}
	return h
}
