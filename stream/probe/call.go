package probe

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/token"
	"toolscope/model"
)

// call is one tools/call as the platform sends it (decoder.PlatformMeta,
// token.Claims, decoder.PlatformHeaders), which a case then changes
// in one place before it is sent.
type call struct {
	id     int64
	tool   string
	args   json.RawMessage
	cc     decoder.CallContext
	meta   map[string]any // params._meta
	claims map[string]any

	metaValue    any    // sent as _meta instead of meta when set (malformed)
	alg          string // signing algorithm; "" is HS256
	secret       []byte // signing key of an HS* token
	rawToken     string // sent as the token instead of a signed one when set
	noToken      bool
	noCredential bool
	batch        bool
}

// probeMetadata is the task metadata every probe call carries: an object
// with a nested object, so key order can be varied.
func probeMetadata() map[string]any {
	return map[string]any{"probe": "toolscope", "order": map[string]any{"a": 1, "b": "two", "c": []any{true, nil}}}
}

// newContext is a fresh task context; the tool_call_id names the case
// ("probe.<case>.<random>"), so a server's log says which case called.
func newContext(caseID string) decoder.CallContext {
	return decoder.CallContext{
		TaskID:      uuid.NewString(),
		ToolCallID:  "probe." + caseID + "." + randomHex(4),
		WorkspaceID: uuid.NewString(),
		AgentID:     uuid.NewString(),
		EndUserID:   "probe-user",
		Metadata:    probeMetadata(),
	}
}

// newCall builds the platform's call for context cc: request id id (also the
// progress token), a token minted now for instance aud.
func newCall(id int64, tool string, args json.RawMessage, cc decoder.CallContext, aud string, secret []byte, now time.Time) *call {
	meta := decoder.PlatformMeta(cc, id)
	return &call{id: id, tool: tool, args: args, cc: cc, meta: meta,
		claims: token.Claims(aud, tool, meta, now), secret: secret}
}

// body is the JSON-RPC request (in a one-element batch for the batch case).
func (c *call) body() ([]byte, error) {
	var meta any = c.meta
	if c.metaValue != nil {
		meta = c.metaValue
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": c.id, "method": jsonrpc.MethodToolsCall,
		"params": map[string]any{"name": c.tool, "arguments": c.args, "_meta": meta}}
	if c.batch {
		return json.Marshal([]any{msg})
	}
	return json.Marshal(msg)
}

// token signs the claims with the call's algorithm.
func (c *call) token() (string, error) {
	switch {
	case c.rawToken != "":
		return c.rawToken, nil
	case c.alg == "" || c.alg == token.Alg:
		return token.Sign(c.claims, c.secret)
	case c.alg == "none":
		return jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims(c.claims)).SignedString(jwt.UnsafeAllowNoneSignatureType)
	case c.alg == "HS384":
		return jwt.NewWithClaims(jwt.SigningMethodHS384, jwt.MapClaims(c.claims)).SignedString(c.secret)
	default: // RS256, with a key of its own: the server holds no public key
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return "", err
		}
		return jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims(c.claims)).SignedString(key)
	}
}

// header is what the platform sends with the body.
func (c *call) header(cred Credential) (http.Header, error) {
	h := decoder.PlatformHeaders(jsonrpc.MethodToolsCall, c.tool)
	if cred.Name != "" && !c.noCredential {
		h.Set(cred.Name, cred.Value)
	}
	if !c.noToken {
		tok, err := c.token()
		if err != nil {
			return nil, err
		}
		h.Set(model.ContextHeader, tok)
	}
	return h, nil
}

// orderedObject is a JSON object written in the order given, where a Go map
// would be sorted: the key-order case sends _meta's metadata this way.
type orderedObject struct {
	keys []string
	vals map[string]any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
