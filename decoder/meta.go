package decoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"toolscope/model"
)

// Warning is a finding that becomes a model warning event: Code is short and
// stable (e.g. meta_claim_mismatch), Message says what was seen.
type Warning struct {
	Code    model.WarningCode
	Message string
}

func (w Warning) String() string { return string(w.Code) + ": " + w.Message }

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
)

// traceKeys are the W3C trace context keys MCP 2026-07-28 allows in _meta.
var traceKeys = []string{"traceparent", "tracestate", "baggage"}

// CallParams is the params object of a tools/call request.
type CallParams struct {
	Name      string
	Arguments json.RawMessage
	Meta      map[string]any
}

// ErrMetaNotObject is ParseCallParams's error for a _meta that is not an
// object (a malformed context value); its other errors are about params.
var ErrMetaNotObject = errors.New("tools/call _meta is not an object")

// ParseCallParams reads tools/call params. A missing or non-string name, or
// _meta that is not an object, is an error (the server answers -32602).
// Meta holds _meta as encoding/json decodes it into interfaces, except that
// a numeric progressToken is a json.Number holding the digits as written.
func ParseCallParams(params json.RawMessage) (CallParams, error) {
	// The common case in one decode: name and arguments from params, _meta
	// kept raw and read by the quick reader (token_json.go), which also
	// keeps a numeric progressToken's digits. Anything else it leaves to
	// parseCallParamsJSON, whose answers (errors included) it matches.
	p := bytes.TrimSpace(params)
	if len(p) == 0 || p[0] != '{' {
		return parseCallParamsJSON(params)
	}
	name, args, metaRaw, ok := fastCallParams(p)
	if !ok {
		if name, args, metaRaw, ok = slowCallParams(p); !ok {
			return parseCallParamsJSON(params)
		}
	}
	metaText := bytes.TrimSpace(metaRaw)
	if len(metaText) == 0 || string(metaText) == "null" {
		return CallParams{Name: name, Arguments: nonNull(args)}, nil
	}
	if metaText[0] != '{' {
		return parseCallParamsJSON(params)
	}
	r := fastReader{s: string(metaText), watchKey: MetaProgressToken}
	meta, ok := r.topObject()
	if !ok {
		return parseCallParamsJSON(params)
	}
	if _, isFloat := meta[MetaProgressToken].(float64); isFloat && r.watchText != "" {
		meta[MetaProgressToken] = json.Number(r.watchText)
	}
	return CallParams{Name: name, Arguments: nonNull(args), Meta: meta}, nil
}

// slowCallParams is fastCallParams by encoding/json, for what the quick
// reader leaves; false when the name is not a string or params do not
// decode. Its own function: the decode's target is on the heap only here.
func slowCallParams(p []byte) (name string, args, meta json.RawMessage, ok bool) {
	var raw struct {
		Name      any             `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(p, &raw) != nil {
		return "", nil, nil, false
	}
	name, ok = raw.Name.(string)
	return name, raw.Arguments, raw.Meta, ok
}

// parseCallParamsJSON is ParseCallParams with encoding/json alone.
func parseCallParamsJSON(params json.RawMessage) (CallParams, error) {
	// One decode reads all three: name and _meta into interfaces (encoding/json
	// builds those without reflection), arguments kept raw. A name or _meta
	// of the wrong type cannot fail the decode, so the checks below say which
	// part is wrong; a repeated key keeps its last value, as JSON decoding
	// does everywhere.
	var raw struct {
		Name      any             `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      any             `json:"_meta"`
	}
	p := bytes.TrimSpace(params)
	if len(p) == 0 || p[0] != '{' {
		return CallParams{}, errors.New("tools/call params is not an object")
	}
	if err := json.Unmarshal(p, &raw); err != nil {
		return CallParams{}, fmt.Errorf("tools/call params: %v", err)
	}
	var cp CallParams
	if raw.Name == nil { // absent or null
		return cp, errors.New("tools/call params has no name")
	}
	name, ok := raw.Name.(string)
	if !ok {
		return cp, errors.New("tools/call name is not a string")
	}
	cp.Name = name
	cp.Arguments = nonNull(raw.Arguments)
	if raw.Meta != nil {
		meta, ok := raw.Meta.(map[string]any)
		if !ok {
			return cp, ErrMetaNotObject
		}
		cp.Meta = meta
		if _, isFloat := meta[MetaProgressToken].(float64); isFloat {
			keepTokenDigits(p, meta)
		}
	}
	return cp, nil
}

// keepTokenDigits replaces a numeric progressToken, decoded as a float64
// (which rounds integers past 2^53), with its text as written: servers echo
// the token digit for digit. Numeric tokens are rare, so only they pay for
// a second decode. The _meta key is matched as in the first decode
// (encoding/json's rules for a struct field); the token key exactly, the
// last one winning, as in the map.
func keepTokenDigits(params []byte, meta map[string]any) {
	var raw struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &raw) != nil {
		return
	}
	if tok := bytes.TrimSpace(raw.Meta[MetaProgressToken]); len(tok) > 0 && (tok[0] == '-' || tok[0] >= '0' && tok[0] <= '9') {
		meta[MetaProgressToken] = json.Number(tok)
	}
}

// MetaInfo is what toolscope reads from a _meta object.
type MetaInfo struct {
	AgentArea                          map[string]any // the agentarea/* keys, prefix kept
	TaskID, ToolCallID, IdempotencyKey string
	ProgressToken                      json.RawMessage
	ProtocolVersion                    string            // io.modelcontextprotocol/protocolVersion
	Trace                              map[string]string // traceparent, tracestate, baggage
	Replayed                           bool              // agentarea/replayed (on results)
}

// ExtractMeta picks the keys toolscope knows out of _meta. Values of the
// wrong type are left out of the typed fields (they stay in AgentArea, and
// VerifyContext reports them).
func ExtractMeta(meta map[string]any) MetaInfo {
	var mi MetaInfo
	for k, v := range meta {
		if strings.HasPrefix(k, AgentAreaPrefix) {
			if mi.AgentArea == nil {
				mi.AgentArea = make(map[string]any)
			}
			mi.AgentArea[k] = v
		}
	}
	mi.TaskID, _ = meta[MetaTaskID].(string)
	mi.ToolCallID, _ = meta[MetaToolCallID].(string)
	mi.IdempotencyKey, _ = meta[MetaIdempotencyKey].(string)
	mi.ProtocolVersion, _ = meta[MetaProtocolVersion].(string)
	if b, ok := meta[MetaReplayed].(bool); ok {
		mi.Replayed = b
	}
	switch tok := meta[MetaProgressToken].(type) {
	case string:
		mi.ProgressToken = marshalString(tok)
	case json.Number: // as ParseCallParams keeps a numeric token
		var buf [64]byte
		if _, ok := appendCanonicalNumber(buf[:0], string(tok)); ok {
			mi.ProgressToken = json.RawMessage(tok)
		}
	case float64:
		if raw, err := json.Marshal(tok); err == nil {
			mi.ProgressToken = raw
		}
	}
	for _, k := range traceKeys {
		if s, ok := meta[k].(string); ok {
			if mi.Trace == nil {
				mi.Trace = make(map[string]string, len(traceKeys))
			}
			mi.Trace[k] = s
		}
	}
	return mi
}

// Event makes the warning a model warning event; the source fills in time,
// source and the call's identity.
func (w Warning) Event() model.Event {
	return model.Event{Kind: model.KindWarning, Code: string(w.Code), Message: w.Message}
}
