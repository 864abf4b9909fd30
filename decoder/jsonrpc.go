package decoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// MessageKind classifies one JSON-RPC message.
type MessageKind int

const (
	KindInvalid MessageKind = iota
	KindRequest
	KindNotification
	KindResponse
)

func (k MessageKind) String() string {
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

// MethodToolsCall is the method toolscope follows.
const MethodToolsCall = "tools/call"

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Message is one JSON-RPC message, classified.
type Message struct {
	Kind   MessageKind
	ID     json.RawMessage // raw id; nil for notifications
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *RPCError
	// Problem says why Kind is KindInvalid.
	Problem string
}

// wireMessage keeps presence information that a plain struct would lose
// (an "id": null is not an absent id).
type wireMessage struct {
	JSONRPC *string          `json:"jsonrpc"`
	ID      json.RawMessage  `json:"id"`
	Method  *string          `json:"method"`
	Params  json.RawMessage  `json:"params"`
	Result  json.RawMessage  `json:"result"`
	Error   *json.RawMessage `json:"error"`
}

// errEmptyBody is returned for a body holding only whitespace.
var errEmptyBody = errors.New("empty JSON-RPC body")

// ParseMessages reads a POST body or one SSE data payload: a single message or
// a batch. A body that is not JSON is an error; a JSON value that is not a
// valid JSON-RPC message comes back as a Message of KindInvalid with Problem
// set, so one bad element of a batch does not hide the others.
func ParseMessages(body []byte) (msgs []Message, batch bool, err error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, false, errEmptyBody
	}
	notJSON := func() error { return fmt.Errorf("JSON-RPC body is not valid JSON (%d bytes)", len(trimmed)) }
	switch trimmed[0] {
	case '[':
		// json.Unmarshal checks the whole text before decoding, so a syntax
		// error here is the body's, and no separate validation pass is needed.
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil {
			if isSyntaxError(err) {
				return nil, false, notJSON()
			}
			return nil, true, fmt.Errorf("JSON-RPC batch: %v", err)
		}
		if len(elems) == 0 {
			return nil, true, errors.New("empty JSON-RPC batch")
		}
		msgs = make([]Message, 0, len(elems))
		for _, e := range elems {
			msgs = append(msgs, parseMessage(e))
		}
		return msgs, true, nil
	case '{':
		m, err := decodeMessage(trimmed)
		if isSyntaxError(err) {
			return nil, false, notJSON()
		}
		return []Message{m}, false, nil
	}
	if !json.Valid(trimmed) {
		return nil, false, notJSON()
	}
	return []Message{parseMessage(trimmed)}, false, nil
}

func isSyntaxError(err error) bool {
	if err == nil {
		return false
	}
	var se *json.SyntaxError
	return errors.As(err, &se)
}

func parseMessage(raw []byte) Message {
	m, _ := decodeMessage(bytes.TrimSpace(raw))
	return m
}

// decodeMessage classifies one message; err is json.Unmarshal's error when
// raw could not be decoded (the Message then says so as KindInvalid).
func decodeMessage(raw []byte) (Message, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return Message{Kind: KindInvalid, Problem: "not a JSON object"}, nil
	}
	if w, ok := fastWireMessage(raw); ok {
		return classify(w), nil
	}
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		return Message{Kind: KindInvalid, Problem: "unreadable message: " + err.Error()}, err
	}
	return classify(w), nil
}

// classify turns a decoded message into a Message of its kind.
func classify(w wireMessage) Message {
	// json.RawMessage fields are already copies of the body's bytes.
	m := Message{ID: w.ID, Params: nonNull(w.Params), Result: w.Result}
	if w.Method != nil {
		m.Method = *w.Method
	}
	if w.JSONRPC == nil || *w.JSONRPC != "2.0" {
		m.Kind = KindInvalid
		m.Problem = `"jsonrpc" is not "2.0"`
		return m
	}
	if w.ID != nil && !validID(w.ID) {
		m.Kind = KindInvalid
		m.Problem = "id is neither a string, a number nor null"
		return m
	}
	switch {
	case w.Method != nil:
		if w.Result != nil || w.Error != nil {
			m.Kind = KindInvalid
			m.Problem = "a message with a method also has a result or error"
			return m
		}
		if m.Params != nil && m.Params[0] != '{' && m.Params[0] != '[' {
			m.Kind = KindInvalid
			m.Problem = "params is neither an object nor an array"
			return m
		}
		if w.ID == nil {
			m.Kind = KindNotification
		} else {
			m.Kind = KindRequest
		}
	case w.Result != nil || w.Error != nil:
		if w.Result != nil && w.Error != nil {
			m.Kind = KindInvalid
			m.Problem = "a response has both result and error"
			return m
		}
		if w.ID == nil {
			m.Kind = KindInvalid
			m.Problem = "a response has no id"
			return m
		}
		if w.Error != nil {
			var e RPCError
			if err := json.Unmarshal(*w.Error, &e); err != nil || bytes.Equal(bytes.TrimSpace(*w.Error), []byte("null")) {
				m.Kind = KindInvalid
				m.Problem = "error is not a JSON-RPC error object"
				return m
			}
			m.Error = &e
		}
		m.Kind = KindResponse
	default:
		m.Kind = KindInvalid
		m.Problem = "neither a method nor a result or error"
	}
	return m
}

func nonNull(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	return raw
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// BatchRejection says how a server must answer a batch: one holding a
// tools/call is answered 400 with -32600 (AgentArea never batches tools/call,
// and batching left MCP in 2025-06-18). reject is false otherwise.
func BatchRejection(msgs []Message) (httpStatus, rpcCode int, reason string, reject bool) {
	for _, m := range msgs {
		if m.Kind == KindRequest && m.Method == MethodToolsCall {
			return http.StatusBadRequest, CodeInvalidRequest,
				"tools/call inside a JSON-RPC batch", true
		}
	}
	return 0, 0, "", false
}

// BatchCallID is the id of the first tools/call request in a batch (nil
// when there is none): a batch rejection answers with it, as every error
// answer carries the request id.
func BatchCallID(msgs []Message) json.RawMessage {
	for _, m := range msgs {
		if m.Kind == KindRequest && m.Method == MethodToolsCall {
			return m.ID
		}
	}
	return nil
}

// ErrorResponse builds the JSON-RPC error body a server (or --enforce)
// answers with. A nil, empty or invalid id (not a string, number or null)
// becomes null, as JSON-RPC requires when the id could not be read.
func ErrorResponse(id json.RawMessage, code int, message string) []byte {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || !json.Valid(id) || !validID(id) {
		id = json.RawMessage("null")
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   RPCError        `json:"error"`
	}{"2.0", id, RPCError{Code: code, Message: message}})
	if err != nil { // only an invalid id could fail; it was checked above
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return body
}
