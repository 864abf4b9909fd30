package otlp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"toolscope/model"
)

// previewChars is the length of the argument and result previews.
const previewChars = 120

// clip sanitises a wire string and cuts it to n runes.
func clip(s string, n int) string {
	return truncateRunes(model.Sanitize(s), n)
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// argumentsPreview is a short, sanitised view of a call's arguments with the
// values of secret-looking keys (password, token, api_key...) redacted.
func argumentsPreview(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "(not JSON)"
	}
	b, err := json.Marshal(redactSecrets(v, 0))
	if err != nil {
		return ""
	}
	return clip(string(b), previewChars)
}

// redactSecrets replaces the values of keys that name a credential, to a
// bounded depth (deeper values are elided: a preview shows little anyway).
func redactSecrets(v any, depth int) any {
	switch t := v.(type) {
	case map[string]any:
		if depth >= 8 {
			return "…"
		}
		for k, val := range t {
			if (model.Redactor{}).IsSecretHeader(k) || strings.Contains(strings.ToLower(k), "key") {
				t[k] = model.Redacted
			} else {
				t[k] = redactSecrets(val, depth+1)
			}
		}
	case []any:
		if depth >= 8 {
			return "…"
		}
		for i := range t {
			t[i] = redactSecrets(t[i], depth+1)
		}
	}
	return v
}

// sessionDigest stands for an MCP session id: the id lets whoever holds it
// talk in the session, so only a digest leaves (equal ids, equal digests).
func sessionDigest(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// requestIDText is jsonrpc.request.id's string form: a string id without
// its quotes, a number as written; none for null.
func requestIDText(raw string) string {
	if raw == "" || raw == "null" {
		return ""
	}
	if strings.HasPrefix(raw, `"`) {
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			return clip(s, maxIDChars)
		}
	}
	return clip(raw, maxIDChars)
}
