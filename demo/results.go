package demo

import (
	"fmt"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
)

// offloadPreviewChars is how much of an offloaded text the model still
// reads.
const offloadPreviewChars = 600

// applyResultRules fills a tool.result's fields from a CallToolResult (as
// jsonrpc read it) the way AgentArea does, judged by decoder.SummarizeResult,
// the rules the tap checks: the model's text (offloaded past
// model.MaxTextChars to a pointer and a preview), images listed as
// {id, mime_type, size} without their bytes, structuredContent passed on
// unless over model.MaxStructuredChars (then structured_content_dropped),
// isError as a failure, and _meta["agentarea/replayed"] as replayed.
func applyResultRules(r *jsonrpc.Result, data map[string]any) {
	if r == nil {
		data["success"] = false
		data["error"] = "MCP tool call failed: unreadable result: not a JSON object"
		return
	}
	s, _ := decoder.SummarizeResult(r, true)
	if s.Offloaded {
		data["result"] = offloadPointer(s.Text)
	} else {
		data["result"] = s.Text
	}
	switch {
	case s.StructuredContentDropped:
		data["structured_content_dropped"] = true
	case s.StructuredContent != nil:
		data["structured_content"] = s.StructuredContent
	}
	if len(s.Images) > 0 {
		images := make([]map[string]any, len(s.Images))
		for i, im := range s.Images {
			images[i] = map[string]any{"id": newID("img_", 6), "mime_type": im.MimeType, "size": im.Size}
		}
		data["images"] = images
	}
	data["success"] = !s.IsError
	if s.IsError {
		data["error"] = s.Text
	}
	if s.Replayed {
		data["replayed"] = true
	}
}

// offloadPointer is what the model reads instead of a long text: where it
// went, how long it was, and a preview.
func offloadPointer(text string) string {
	runes := []rune(text)
	return fmt.Sprintf("[Tool result offloaded: %d characters stored as %s. Preview:]\n%s…",
		len(runes), newID("ctx_", 6), string(runes[:offloadPreviewChars]))
}
