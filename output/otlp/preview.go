package otlp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"toolscope/model"
)

// previewBytes bounds the argument and result previews.
const previewBytes = 120

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
	return model.Clip(b.String(), previewBytes)
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
			return model.Clip(s, maxIDBytes)
		}
	}
	return model.Clip(raw, maxIDBytes)
}
