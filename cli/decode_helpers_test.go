package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/decoder"
)

// Copied from decoder's tests with the decode printing they test (until a
// shared test kit holds them).

const (
	testSecret   = "s3cret-for-tests-0123456789-abcdef" // 34 characters
	otherSecret  = "another-secret-0123456789-abcdefgh"
	testInstance = "7c0d5a4e-0b1f-4c55-9d2a-1f3e5b6a7c8d"
)

var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func baseClaims() jwt.MapClaims {
	iat := testNow.Add(-12 * time.Second).Unix()
	return jwt.MapClaims{
		"iss": "agentarea", "aud": testInstance, "iat": iat, "exp": iat + 300,
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

// metaFor builds the _meta a platform would send with claims, through JSON
// text as a tap reads it.
func metaFor(c jwt.MapClaims) map[string]any {
	m := map[string]any{"progressToken": 3}
	for k, v := range c {
		if !registeredClaims[k] {
			m[decoder.AgentAreaPrefix+k] = v
		}
	}
	var out map[string]any
	if err := json.Unmarshal(mustJSON(m), &out); err != nil {
		panic(err)
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func sign(t testing.TB, method jwt.SigningMethod, claims jwt.MapClaims, key any) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// signWithHeader signs claims with HS256 and extra JOSE header parameters.
func signWithHeader(t testing.TB, claims jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
