package modeltest

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Fixed token fixtures: a secret, a second one that does not verify it, an
// instance id (the audience) and the moment the tests verify at.
const (
	Secret      = "s3cret-for-tests-0123456789-abcdef" // 34 characters
	OtherSecret = "another-secret-0123456789-abcdefgh"
	Instance    = "7c0d5a4e-0b1f-4c55-9d2a-1f3e5b6a7c8d"
)

// Now is the fixed "now" the token tests verify at.
var Now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// agentAreaPrefix starts the _meta keys that mirror the token's claims
// (jsonrpc.AgentAreaPrefix; the kit imports no project package but model).
const agentAreaPrefix = "agentarea/"

// BaseClaims are a valid token's claims for a get_order call, issued 12 s
// before Now for Instance.
func BaseClaims() jwt.MapClaims {
	iat := Now.Add(-12 * time.Second).Unix()
	return jwt.MapClaims{
		"iss": "agentarea", "aud": Instance, "iat": iat, "exp": iat + 300,
		"jti": "5b1e7a52-3f0c-4d7e-8b9a-0c1d2e3f4a5b", "tool": "get_order",
		"protocol": "1", "task_id": "6f1c", "tool_call_id": "call_abc", "workspace_id": "1b2e",
		"idempotency_key": "6f1c:call_abc", "agent_id": "9d4a", "end_user_id": "user-42",
		"metadata": map[string]any{"chatId": "c-9", "nested": map[string]any{"a": 1, "b": []any{1, 2}}},
	}
}

// registeredClaims stay in the token only; the others are mirrored in _meta.
var registeredClaims = map[string]bool{
	"iss": true, "sub": true, "aud": true, "exp": true, "nbf": true, "iat": true, "jti": true, "tool": true,
}

// MetaFor builds the _meta a platform would send with claims, the way a tap
// reads it: through JSON text.
func MetaFor(c jwt.MapClaims) map[string]any {
	m := map[string]any{"progressToken": 3}
	for k, v := range c {
		if !registeredClaims[k] {
			m[agentAreaPrefix+k] = v
		}
	}
	return RoundTrip(m)
}

// RoundTrip is m written as JSON and read back (numbers become float64).
func RoundTrip(m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// Sign signs claims with method and key.
func Sign(t testing.TB, method jwt.SigningMethod, claims jwt.MapClaims, key any) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// SignWithHeader signs claims with HS256 under Secret and extra JOSE header
// parameters.
func SignWithHeader(t testing.TB, claims jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString([]byte(Secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// MintToken signs a context token like the platform does, valid from now
// for five minutes: aud and tool, and a claim for each agentarea/ key of
// meta. mutate edits the claims before signing (nil leaves them).
func MintToken(t testing.TB, secret []byte, aud, tool string, meta map[string]any, mutate func(jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	claims := jwt.MapClaims{
		"iss": "agentarea", "aud": aud, "iat": now.Unix(), "exp": now.Add(300 * time.Second).Unix(),
		"jti": "0b8f6a1e-6a8e-4f0e-b3c1-7c2d9e4f5a6b", "tool": tool,
	}
	for k, v := range meta {
		if name, ok := strings.CutPrefix(k, agentAreaPrefix); ok {
			claims[name] = v
		}
	}
	if mutate != nil {
		mutate(claims)
	}
	return Sign(t, jwt.SigningMethodHS256, claims, secret)
}

// ContractMeta is the _meta AgentArea sends with a call.
func ContractMeta(task, toolCall string, progressToken any) map[string]any {
	return map[string]any{
		"progressToken":             progressToken,
		"agentarea/protocol":        "1",
		"agentarea/task_id":         task,
		"agentarea/tool_call_id":    toolCall,
		"agentarea/workspace_id":    "1b2e0c4d-aaaa-bbbb-cccc-123456789abc",
		"agentarea/idempotency_key": task + ":" + toolCall,
	}
}

// CallBody is a tools/call request body (meta nil: no _meta).
func CallBody(t testing.TB, id any, tool string, args any, meta map[string]any) []byte {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// B64URL is s in unpadded base64url, a JWT segment's encoding.
func B64URL(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
