package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// AgentAreaPrefix starts every key AgentArea adds to _meta.
const AgentAreaPrefix = "agentarea/"

// The _meta keys of AgentArea's contract and of MCP 2026-07-28.
const (
	MetaProtocol        = "agentarea/protocol"
	MetaTaskID          = "agentarea/task_id"
	MetaToolCallID      = "agentarea/tool_call_id"
	MetaWorkspaceID     = "agentarea/workspace_id"
	MetaIdempotencyKey  = "agentarea/idempotency_key"
	MetaAgentID         = "agentarea/agent_id"
	MetaEndUserID       = "agentarea/end_user_id"
	MetaMetadata        = "agentarea/metadata"
	MetaReplayed        = "agentarea/replayed"
	MetaProgressToken   = "progressToken"
	MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaClientCapabilities declares, on each request, what the client
	// can do for the server (MCP 2026-07-28).
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaContextToken carries the context token in _meta over stdio,
	// which has no headers: AgentArea's header, by name.
	MetaContextToken = "X-AgentArea-Context"
)

// contractKeys are the agentarea/* keys of the contract.
var contractKeys = [...]string{MetaProtocol, MetaTaskID, MetaToolCallID, MetaWorkspaceID, MetaIdempotencyKey,
	MetaAgentID, MetaEndUserID, MetaMetadata, MetaReplayed}

// agentAreaKey is key as a string: the constant when it is one of the
// contract's keys (most calls carry five), a copy otherwise.
func agentAreaKey(key []byte) string {
	for _, k := range contractKeys {
		if string(key) == k {
			return k
		}
	}
	return string(key)
}

// CallParams is the params object of a tools/call request.
type CallParams struct {
	Name      string
	Arguments json.RawMessage // nil when absent or null
	// RequestState and InputResponses are what a later round of a
	// multi-round call (MCP 2026-07-28) sends back: the state the server's
	// input_required answer gave, as a string ("" when absent or not a
	// string), and the client's answers to its input requests, as sent.
	RequestState   string
	InputResponses json.RawMessage
	// InputResponseIDs are the keys of inputResponses, in the order sent
	// (nil when it is not an object).
	InputResponseIDs []string
	// Problem says why the params are not a tools/call's (not an object,
	// no name, a name that is not a string): a server answers 400/-32602.
	Problem string
}

// Meta is a _meta object, as far as toolscope reads it.
type Meta struct {
	// AgentArea holds the agentarea/* keys, prefix kept, their values as
	// encoding/json decodes them into an interface.
	AgentArea map[string]any
	// ProgressToken is as written (nil when absent), TokenKey its IDKey.
	ProgressToken                    json.RawMessage
	TokenKey                         string
	ProtocolVersion                  string // io.modelcontextprotocol/protocolVersion
	TraceParent, TraceState, Baggage string // W3C trace context (MCP 2026-07-28)
	// ContextToken is a context token carried in _meta (MetaContextToken).
	ContextToken string
	// ClientCapabilities is what MetaClientCapabilities declares, nil when
	// it is absent or not an object.
	ClientCapabilities *ClientCapabilities
	// Problem says why _meta is not a readable context (not an object, a
	// number out of range in a context value): a malformed context value,
	// which a server answers 400/-32602.
	Problem string
}

// ClientCapabilities says which of the capabilities a server's input
// requests need the client declares (a member present and not null).
type ClientCapabilities struct {
	Elicitation, Sampling, Roots bool
}

// str is the agentarea/* key k when it is a string.
func (m *Meta) str(k string) string {
	s, _ := m.AgentArea[k].(string)
	return s
}

func (m *Meta) TaskID() string         { return m.str(MetaTaskID) }
func (m *Meta) ToolCallID() string     { return m.str(MetaToolCallID) }
func (m *Meta) IdempotencyKey() string { return m.str(MetaIdempotencyKey) }

// Progress is the params of one notifications/progress.
type Progress struct {
	Token    json.RawMessage
	Key      string // IDKey(Token)
	Progress float64
	Total    *float64
	Message  string
}

// Done says whether this notification reports completion (progress >= total).
func (p Progress) Done() bool { return p.Total != nil && p.Progress >= *p.Total }

// Cancel is the params of notifications/cancelled.
type Cancel struct {
	RequestID json.RawMessage
	Key       string // IDKey(RequestID)
	Reason    string
}

// params is a params object's members as read, for whichever method the
// message turns out to have (its members may come before "method").
type params struct {
	object                                  bool
	name, arguments, meta                   json.RawMessage
	progressToken, progress, total, message json.RawMessage
	requestID, reason                       json.RawMessage
	requestState, inputResponses            json.RawMessage
	inputResponseIDs                        []string
	capabilities                            *ClientCapabilities
	metaRead                                Meta
	protocolVersion, clientInfo, uri        any
}

// params reads a message's params: the members of tools/call,
// notifications/progress and notifications/cancelled, and those few other
// methods show (progressToken and the like are matched as encoding/json
// matches struct fields; what is shown, as a map's keys, exactly).
func (r *reader) params(p *params) json.RawMessage {
	if r.dec.PeekKind() != '{' {
		return r.value()
	}
	p.object = true
	r.token()
	start := r.offset() - 1
	var seen [len(paramsKeys)]bool
	for r.more('}') {
		key := r.name()
		switch r.known(key, paramsKeys[:], seen[:], CodeInvalidParams, "params key ", -1) {
		case keyName:
			p.name = r.value()
		case keyMeta:
			p.metaRead = Meta{}
			p.meta = r.meta(&p.metaRead)
		case keyArguments:
			p.arguments = r.value()
		default:
			r.otherParam(p, key)
		}
	}
	return r.text[start:r.offset()]
}

func (r *reader) otherParam(p *params, key []byte) {
	switch {
	case foldsTo(key, "progressToken"):
		p.progressToken = r.value()
	case foldsTo(key, "progress"):
		p.progress = r.value()
	case foldsTo(key, "total"):
		p.total = r.value()
	case foldsTo(key, "message"):
		p.message = r.value()
	case foldsTo(key, "requestId"):
		p.requestID = r.value()
	case foldsTo(key, "reason"):
		p.reason = r.value()
	case foldsTo(key, "requestState"):
		p.requestState = r.value()
	case foldsTo(key, "inputResponses"):
		p.inputResponses, p.inputResponseIDs = r.objectKeys()
	case string(key) == "protocolVersion":
		p.protocolVersion, _, _ = r.any(nil)
	case string(key) == "clientInfo":
		p.clientInfo, _, _ = r.any(nil)
	case string(key) == "capabilities":
		p.capabilities = r.clientCapabilities()
	case string(key) == "uri":
		p.uri, _, _ = r.any(nil)
	default:
		r.skip()
	}
}

// meta reads a _meta value: the context keys (progressToken and the
// agentarea/* keys, each to be spelled once and exactly), the protocol
// version, trace context and a context token.
func (r *reader) meta(m *Meta) json.RawMessage {
	if r.dec.PeekKind() != '{' {
		raw := r.value()
		if !isNull(raw) {
			m.Problem = "tools/call _meta is not an object"
		}
		return json.RawMessage(raw)
	}
	r.token()
	start := r.offset() - 1
	var context contextKeys
	for r.more('}') {
		key := r.name()
		if reason := contextKeySpelling(key); reason != "" {
			r.ambiguous(CodeInvalidParams, "_meta key "+quoteKey(key)+" "+reason, false)
		}
		if isContextKey(key) {
			if problem := context.check(key); problem != "" {
				r.ambiguous(CodeInvalidParams, problem, false)
			}
		}
		switch {
		case string(key) == MetaProgressToken:
			_, m.ProgressToken, _ = r.any(key)
		case bytes.HasPrefix(key, []byte(AgentAreaPrefix)):
			v, _, ok := r.any(key)
			if !ok && m.Problem == "" {
				m.Problem = "_meta " + quoteKey(key) + " holds a number out of range"
			}
			if m.AgentArea == nil {
				m.AgentArea = make(map[string]any, 8)
			}
			m.AgentArea[agentAreaKey(key)] = v
		case string(key) == MetaProtocolVersion:
			m.ProtocolVersion, _ = stringValue(r.value())
		case string(key) == "traceparent":
			m.TraceParent, _ = stringValue(r.value())
		case string(key) == "tracestate":
			m.TraceState, _ = stringValue(r.value())
		case string(key) == "baggage":
			m.Baggage, _ = stringValue(r.value())
		case string(key) == MetaContextToken:
			m.ContextToken, _ = stringValue(r.value())
		case string(key) == MetaClientCapabilities:
			m.ClientCapabilities = r.clientCapabilities()
		default:
			r.skip()
		}
	}
	return r.text[start:r.offset()]
}

// objectKeys reads a value and, when it is an object, its keys.
func (r *reader) objectKeys() (json.RawMessage, []string) {
	if r.dec.PeekKind() != '{' {
		return r.value(), nil
	}
	r.token()
	start := r.offset() - 1
	keys := []string{}
	for r.more('}') {
		keys = append(keys, r.key())
		r.skip()
	}
	return r.text[start:r.offset()], keys
}

// clientCapabilities reads MetaClientCapabilities: which of elicitation,
// sampling and roots it declares.
func (r *reader) clientCapabilities() *ClientCapabilities {
	if r.dec.PeekKind() != '{' {
		r.skip()
		return nil
	}
	r.token()
	c := &ClientCapabilities{}
	for r.more('}') {
		key := r.key()
		declared := r.dec.PeekKind() != 'n'
		r.skip()
		switch key {
		case "elicitation":
			c.Elicitation = declared
		case "sampling":
			c.Sampling = declared
		case "roots":
			c.Roots = declared
		}
	}
	return c
}

// interpret fills the parts of m its method has from the params read.
func (p *params) interpret(m *Message, raw json.RawMessage) {
	m.Meta = p.metaRead
	m.Meta.TokenKey = IDKey(m.Meta.ProgressToken)
	switch m.Method {
	case MethodToolsCall:
		m.Call = p.call()
	case MethodProgress:
		m.Progress, m.ProgressErr = p.readProgress()
	case MethodCancelled:
		m.Cancel.RequestID, m.Cancel.Key = p.requestID, IDKey(p.requestID)
		m.Cancel.Reason, _ = stringValue(p.reason)
	}
	m.Plain = p.plain(m)
	if m.Method == MethodInitialize && m.Kind == KindRequest {
		m.Capabilities = p.capabilities
	}
}

// call reads a tools/call's params as a server does.
func (p *params) call() CallParams {
	var c CallParams
	if !p.object {
		c.Problem = "tools/call params is not an object"
		return c
	}
	if !isNull(p.arguments) {
		c.Arguments = json.RawMessage(p.arguments)
	}
	c.RequestState, _ = stringValue(p.requestState)
	if p.inputResponses != nil && !isNull(p.inputResponses) {
		c.InputResponses = json.RawMessage(p.inputResponses)
		c.InputResponseIDs = p.inputResponseIDs
	}
	name, ok := stringValue(p.name)
	switch {
	case p.name == nil || isNull(p.name):
		c.Problem = "tools/call params has no name"
	case !ok:
		c.Problem = "tools/call name is not a string"
	default:
		c.Name = name
	}
	return c
}

// readProgress reads notifications/progress params: progressToken (string
// or integer) and a finite numeric progress are required; total and
// message are optional.
func (p *params) readProgress() (Progress, error) {
	var out Progress
	switch tok := p.progressToken; {
	case !p.object:
		return out, errors.New("progress params is not an object")
	case tok == nil || isNull(tok):
		return out, errors.New("progress notification has no progressToken")
	case tok[0] != '"' && tok[0] != '-' && (tok[0] < '0' || tok[0] > '9'):
		return out, errors.New("progressToken is neither a string nor a number")
	default:
		out.Token, out.Key = json.RawMessage(tok), IDKey(tok)
	}
	if p.progress == nil || isNull(p.progress) {
		return out, errors.New("progress notification has no progress")
	}
	var err error
	if out.Progress, err = finiteNumber(p.progress); err != nil {
		return out, fmt.Errorf("progress: %v", err)
	}
	if p.total != nil && !isNull(p.total) {
		t, err := finiteNumber(p.total)
		if err != nil {
			return out, fmt.Errorf("total: %v", err)
		}
		out.Total = &t
	}
	if p.message != nil && !isNull(p.message) {
		var ok bool
		if out.Message, ok = stringValue(p.message); !ok {
			return out, errors.New("message is not a string")
		}
	}
	return out, nil
}

func finiteNumber(raw []byte) (float64, error) {
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return 0, errors.New("not a number")
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New("not a finite number")
	}
	return f, nil
}

// plain is what the params of the few other methods say worth showing.
func (p *params) plain(m *Message) map[string]any {
	var out map[string]any
	note := func(k string, v any, present bool) {
		if present {
			if out == nil {
				out = map[string]any{}
			}
			out[k] = v
		}
	}
	switch m.Method {
	case "initialize":
		note("protocolVersion", p.protocolVersion, p.protocolVersion != nil)
		note("clientInfo", p.clientInfo, p.clientInfo != nil)
	case MethodCancelled:
		id, _ := scalar(p.requestID)
		note("requestId", id, p.requestID != nil)
		note("reason", m.Cancel.Reason, p.reason != nil)
	case "resources/read", "resources/subscribe":
		note("uri", p.uri, p.uri != nil)
	case "prompts/get":
		name, _ := scalar(p.name)
		note("name", name, p.name != nil)
	}
	return out
}
