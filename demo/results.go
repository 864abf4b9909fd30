package demo

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"toolscope/decoder/jsonrpc"
)

// The platform's result limits (docs/commands/probe.md, result_limits).
const (
	textOffloadChars       = 8000
	structuredContentChars = 16000
	offloadPreviewChars    = 600
)

// wireResult is a CallToolResult as the platform reads it.
type wireResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
		URI      string `json:"uri"`
		Resource *struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Blob     string `json:"blob"`
		} `json:"resource"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Meta              map[string]any  `json:"_meta"`
}

// applyResultRules fills a tool.result's fields from a CallToolResult the way
// AgentArea does: the model's text flattened from the content (text over 8000
// characters offloaded to a pointer and a preview), images listed as
// {id, mime_type, size} without their bytes, structuredContent passed on
// unless its JSON is over 16000 characters (then structured_content_dropped),
// isError as a failure, and _meta["agentarea/replayed"] as replayed.
func applyResultRules(raw json.RawMessage, data map[string]any) {
	var r wireResult
	if err := json.Unmarshal(raw, &r); err != nil {
		data["success"] = false
		data["error"] = "MCP tool call failed: unreadable result: " + err.Error()
		return
	}
	var parts []string
	var images []map[string]any
	addImage := func(mime, b64 string) {
		size := base64.StdEncoding.DecodedLen(len(b64))
		if b, err := base64.StdEncoding.DecodeString(b64); err == nil {
			size = len(b)
		}
		images = append(images, map[string]any{"id": newID("img_", 6), "mime_type": mime, "size": size})
		parts = append(parts, fmt.Sprintf("<image mime=%s>", mime))
	}
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "image":
			addImage(c.MimeType, c.Data)
		case "resource":
			if c.Resource == nil {
				continue
			}
			if c.Resource.Blob != "" && strings.HasPrefix(c.Resource.MimeType, "image/") {
				addImage(c.Resource.MimeType, c.Resource.Blob)
			} else {
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, c.Resource.Text))
			}
		case "resource_link":
			parts = append(parts, fmt.Sprintf("<resource uri=%s>", c.URI))
		}
	}
	structured := compactJSON(r.StructuredContent)
	text := strings.Join(parts, "\n")
	if len(r.Content) == 0 && structured != nil {
		text = string(structured) // the model reads structuredContent when content is empty
	}
	if n := utf8.RuneCountInString(text); n > textOffloadChars {
		data["result"] = offloadPointer(text, n)
	} else {
		data["result"] = text
	}
	if structured != nil {
		if utf8.RuneCount(structured) > structuredContentChars {
			data["structured_content_dropped"] = true
		} else {
			data["structured_content"] = json.RawMessage(structured)
		}
	}
	if len(images) > 0 {
		data["images"] = images
	}
	data["success"] = !r.IsError
	if r.IsError {
		data["error"] = text
	}
	if replayed, _ := r.Meta[jsonrpc.MetaReplayed].(bool); replayed {
		data["replayed"] = true
	}
}

// offloadPointer is what the model reads instead of a long text: where it
// went, how long it was, and a preview.
func offloadPointer(text string, chars int) string {
	preview := []rune(text)[:offloadPreviewChars]
	return fmt.Sprintf("[Tool result offloaded: %d characters stored as %s. Preview:]\n%s…",
		chars, newID("ctx_", 6), string(preview))
}

func compactJSON(raw json.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil
	}
	return buf.Bytes()
}
