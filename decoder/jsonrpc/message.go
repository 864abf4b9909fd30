// Package jsonrpc reads what travels between an MCP client and server: a
// request body, a response body, one SSE event's data or one stdio line,
// each read once (Read) into Messages that carry everything the rest of
// toolscope needs of them (the envelope, a tools/call's params and _meta,
// a progress notification, a cancellation, a tools/call result's summary)
// together with what would let servers read the same bytes differently
// (Ambiguity). The JSON itself is scanned by jsontext, the tokenizer of
// Go's encoding/json/v2.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// Kind classifies one JSON-RPC message.
type Kind int

const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// JSON-RPC and MCP error codes toolscope names.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// AgentArea's context contract.
	CodeUnauthorized = -32001
	CodeForbidden    = -32003
	// MCP 2026-07-28.
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
)

// The methods toolscope reads the params of.
const (
	MethodToolsCall = "tools/call"
	MethodProgress  = "notifications/progress"
	MethodCancelled = "notifications/cancelled"
	// MethodInitialize opens an MCP 2025-11-25 session.
	MethodInitialize = "initialize"
)

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Message is one JSON-RPC message, classified, with the parts of it
// toolscope follows already read.
type Message struct {
	Kind   Kind
	ID     json.RawMessage // raw id; nil for notifications
	Key    string          // IDKey(ID): what an answer's id is matched by
	Method string
	Params json.RawMessage // nil when absent or null
	Result json.RawMessage
	Error  *RPCError
	// Problem says why Kind is KindInvalid.
	Problem string

	// Call is the params of a tools/call request.
	Call CallParams
	// Progress is the params of notifications/progress, ProgressErr why
	// they cannot be read.
	Progress    Progress
	ProgressErr error
	// Cancel is the params of notifications/cancelled.
	Cancel Cancel
	// Meta is params._meta, as far as toolscope reads it.
	Meta Meta
	// Summary is the result read as a CallToolResult; the answer to a
	// tools/call says so (nil when the result is not an object).
	Summary *Result
	// Plain is what the few other methods' params or result say that is
	// worth showing (initialize, the lists, resources/read...).
	Plain map[string]any
	// Capabilities is what an initialize request's params.capabilities
	// declare (MCP 2025-11-25 declares them once a session, there); nil
	// when absent, not an object, or another method.
	Capabilities *ClientCapabilities
}

// IsCall says whether m is a tools/call request.
func (m *Message) IsCall() bool { return m.Kind == KindRequest && m.Method == MethodToolsCall }

// envelope is a message's members as read: raw values, the last of a
// repeated member kept (as encoding/json keeps it).
type envelope struct {
	jsonrpc, id, method, params, result json.RawMessage
	// rpcError is the error member (nil when absent or null), errObject
	// what it says when it is an error object.
	rpcError  json.RawMessage
	errObject *RPCError
}

// classify turns the members read into a Message of its kind.
func (m *Message) classify(e *envelope) {
	m.ID, m.Result, m.Key = e.id, e.result, IDKey(e.id)
	if !isNull(e.params) {
		m.Params = e.params
	}
	method, hasMethod := methodName(e.method)
	if hasMethod {
		m.Method = method
	}
	switch {
	case string(e.jsonrpc) != `"2.0"` && !isJSONString(e.jsonrpc, "2.0"):
		m.invalid(`"jsonrpc" is not "2.0"`)
	case e.id != nil && !validID(e.id):
		m.invalid("id is neither a string, a number nor null")
	case e.method != nil && !isNull(e.method):
		switch {
		case !hasMethod:
			m.invalid(`"method" is not a string`)
		case e.result != nil || e.rpcError != nil:
			m.invalid("a message with a method also has a result or error")
		case m.Params != nil && m.Params[0] != '{' && m.Params[0] != '[':
			m.invalid("params is neither an object nor an array")
		case e.id == nil:
			m.Kind = KindNotification
		default:
			m.Kind = KindRequest
		}
	case e.result != nil || e.rpcError != nil:
		switch {
		case e.result != nil && e.rpcError != nil:
			m.invalid("a response has both result and error")
		case e.id == nil:
			m.invalid("a response has no id")
		case e.rpcError != nil && e.errObject == nil:
			m.invalid("error is not a JSON-RPC error object")
		default:
			m.Kind, m.Error = KindResponse, e.errObject
		}
	default:
		m.invalid("neither a method nor a result or error")
	}
}

// methodName is the method a message names; the methods every session
// sends are shared rather than made per message.
func methodName(raw []byte) (string, bool) {
	switch string(raw) {
	case `"` + MethodToolsCall + `"`:
		return MethodToolsCall, true
	case `"` + MethodProgress + `"`:
		return MethodProgress, true
	case `"` + MethodCancelled + `"`:
		return MethodCancelled, true
	}
	return stringValue(raw)
}

func (m *Message) invalid(problem string) {
	m.Kind, m.Problem = KindInvalid, problem
}

func isNull(raw []byte) bool { return string(raw) == "null" }

// isJSONString says whether raw is a JSON string holding s (written with
// escapes, say).
func isJSONString(raw []byte, s string) bool {
	v, ok := stringValue(raw)
	return ok && v == s
}

// validID: a JSON-RPC id is a string, a number or null.
func validID(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// ErrorResponse builds the JSON-RPC error body a server (or --enforce)
// answers with. A nil, empty or invalid id (not a string, number or null)
// becomes null, as JSON-RPC requires when the id could not be read.
func ErrorResponse(id json.RawMessage, code int, message string) []byte {
	id = bytes.TrimSpace(id)
	if !validID(id) || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	msg, _ := json.Marshal(message) // a string always marshals
	b = append(b, msg...)
	return append(b, "}}"...)
}

// WriteResponse answers an HTTP request with a JSON-RPC response body (a
// result, or ErrorResponse's error), as a server or --enforce does.
func WriteResponse(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
