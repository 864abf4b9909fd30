package token

import (
	"encoding/base64"
	"encoding/json"
)

func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
