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

// argumentsPreview is a short, sanitised view of a call's arguments, as
// the hub left them (redacted).
func argumentsPreview(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "(not JSON)"
	}
	return clip(b.String(), previewChars)
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
