package decoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"unicode/utf8"

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

// MCP 2026-07-28 request headers.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// canonicalProtocolVersionHeader is HeaderProtocolVersion as http.Header
// keys it, worked out once: Get would build it for every call.
var canonicalProtocolVersionHeader = textproto.CanonicalMIMEHeaderKey(HeaderProtocolVersion)

// headerValue is h.Get of a name already canonical.
func headerValue(h http.Header, canonical string) string {
	if vs := h[canonical]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// MCP revisions toolscope knows; 2026-07-28 is the stateless one whose
// requests carry Mcp-Method and Mcp-Name.
const (
	MCPStateless = "2026-07-28"
)

var knownMCPVersions = map[string]bool{
	"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true, MCPStateless: true,
}

// CheckMCPHeaders compares MCP-Protocol-Version, Mcp-Method and Mcp-Name
// with the body when both sides are present; each mismatch is a warning
// (code mcp_header_mismatch; a 2026-07-28 server answers it with -32020).
// It also warns of a protocol version toolscope does not know
// (mcp_protocol_version_unknown) and of a 2026-07-28 request without the
// headers that revision requires (mcp_header_missing).
func CheckMCPHeaders(h http.Header, method, toolName string, meta MetaInfo) []Warning {
	var ws []Warning
	check := func(header, got, want, what string) {
		if got == "" || want == "" || got == want {
			return
		}
		ws = append(ws, Warning{Code: model.WarnMCPHeaderMismatch, Message: fmt.Sprintf(
			"%s header %q differs from the body's %s %q", header, clip(got), what, clip(want))})
	}
	version := strings.TrimSpace(headerValue(h, canonicalProtocolVersionHeader))
	gotMethod := strings.TrimSpace(h.Get(HeaderMethod))
	gotName := strings.TrimSpace(h.Get(HeaderName))
	check(HeaderProtocolVersion, version, meta.ProtocolVersion, "_meta protocolVersion")
	check(HeaderMethod, gotMethod, method, "method")
	if method == MethodToolsCall {
		check(HeaderName, gotName, toolName, "tool name")
	}
	if version != "" && !knownMCPVersions[version] {
		ws = append(ws, Warning{Code: model.WarnMCPProtocolVersionUnknown, Message: fmt.Sprintf(
			"MCP-Protocol-Version %q is not a revision toolscope knows", clip(version))})
	}
	if version == MCPStateless || meta.ProtocolVersion == MCPStateless {
		var missing []string
		if gotMethod == "" && method != "" {
			missing = append(missing, HeaderMethod)
		}
		if gotName == "" && method == MethodToolsCall {
			missing = append(missing, HeaderName)
		}
		if version == "" {
			missing = append(missing, HeaderProtocolVersion)
		}
		if len(missing) > 0 {
			ws = append(ws, Warning{Code: model.WarnMCPHeaderMissing, Message: fmt.Sprintf(
				"a %s request must carry %s", MCPStateless, strings.Join(missing, " and "))})
		}
	}
	return ws
}

// Event makes the warning a model warning event; the source fills in time,
// source and the call's identity.
func (w Warning) Event() model.Event {
	return model.Event{Kind: model.KindWarning, Code: string(w.Code), Message: w.Message}
}

// IDKey is the identity of a JSON-RPC id or a progress token given as raw
// JSON, for matching a server's echo to the request: the same value written
// in another JSON form ("\u00e9" for "é", "\/" for "/", "<" for "\u003c",
// 1e3 for 1000, every digit of an integer past 2^53) has the same key, and
// a string never shares one with a number ("1" is not 1). "" means none
// (absent or null). Keys are for comparing, not for showing.
func IDKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	switch c := raw[0]; {
	case c == '"':
		if s, ok := plainString(raw); ok {
			return "s" + s
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "s" + s // escapes decoded, invalid UTF-8 as U+FFFD
		}
	case c == '-' || c >= '0' && c <= '9':
		var buf [64]byte
		if key, ok := appendCanonicalNumber(append(buf[:0], 'n'), string(raw)); ok {
			return string(key)
		}
	}
	// Not a valid id: compare the text itself.
	return "j" + string(raw)
}

// plainString is the value of a JSON string literal written without any
// escape, control character or invalid UTF-8 (the common case), read
// without decoding.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, b := range body {
		if b < 0x20 || b == '\\' || b == '"' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// canonicalNumber writes a JSON number exactly, in one form per value:
// "0", or an optional "-", the significant digits without leading or
// trailing zeros, then "e" and the exponent (so 1000, 1e3 and 10.0E2 are
// all "1e3"). It never goes through float64. ok is false for text that is
// not a JSON number, or whose exponent is too large to matter.
func canonicalNumber(s string) (string, bool) {
	var buf [64]byte
	b, ok := appendCanonicalNumber(buf[:0], s)
	if !ok {
		return "", false
	}
	return string(b), true
}

// appendNumberKey appends IDKey's key of a number's text (valid JSON
// number grammar) without its allocations.
func appendNumberKey(dst []byte, text []byte) []byte {
	if b, ok := appendCanonicalNumber(append(dst, 'n'), string(text)); ok {
		return b
	}
	return append(append(dst, 'j'), text...)
}

// appendCanonicalNumber appends canonicalNumber's form of s to dst.
func appendCanonicalNumber(dst []byte, s string) ([]byte, bool) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg, i = true, i+1
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := s[intStart:i]
	if len(intDigits) == 0 || len(intDigits) > 1 && intDigits[0] == '0' {
		return dst, false
	}
	var fracDigits string
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return dst, false
		}
		fracDigits = s[start:i]
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		start := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		digits := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == digits || i-digits > 15 {
			return dst, false
		}
		exp, _ = strconv.ParseInt(s[start:i], 10, 64)
	}
	if i != len(s) {
		return dst, false
	}
	// The value is 0.<intDigits><fracDigits> * 10^(exp+len(intDigits)):
	// trim zeros on both ends of the digits, then place the point after the
	// first significant digit.
	exp += int64(len(intDigits))
	lead := countLeadingZeros(intDigits)
	if lead == len(intDigits) {
		lead += countLeadingZeros(fracDigits)
	}
	all := len(intDigits) + len(fracDigits)
	if lead == all {
		return append(dst, '0'), true // -0 and 0.000e5 are 0
	}
	// The significant digits: from lead to the last non-zero one.
	last := all
	for last > lead && digitAt(intDigits, fracDigits, last-1) == '0' {
		last--
	}
	exp -= int64(lead) + 1
	if neg {
		dst = append(dst, '-')
	}
	for k := lead; k < last; k++ {
		dst = append(dst, digitAt(intDigits, fracDigits, k))
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, exp, 10), true
}

func countLeadingZeros(s string) int {
	n := 0
	for n < len(s) && s[n] == '0' {
		n++
	}
	return n
}

// digitAt is the k-th digit of a followed by b.
func digitAt(a, b string, k int) byte {
	if k < len(a) {
		return a[k]
	}
	return b[k-len(a)]
}

// marshalString is s as a JSON string, without the HTML escaping of
// json.Marshal (a token written "a<b" stays so).
func marshalString(s string) json.RawMessage {
	if isPlainJSONText(s) { // the encoder would write it as it is
		return json.RawMessage(`"` + s + `"`)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// isPlainJSONText: printable ASCII an encoder writes unescaped between
// quotes (no quote, no backslash).
func isPlainJSONText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
