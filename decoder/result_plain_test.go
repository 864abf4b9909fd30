package decoder

import (
	"encoding/json"
	"strings"
	"testing"

	"toolscope/model"
)

// TestSummarizePlainResult: a plain MCP call's result is held to MCP's
// rules alone; the platform's limits (offload, structuredContent dropped,
// content_empty, image type, size and count) are AgentArea's, and the same
// results judged as an AgentArea call's break them.
func TestSummarizePlainResult(t *testing.T) {
	nine := make([]map[string]any, 9)
	for i := range nine {
		nine[i] = imageBlock("image/png", imageData(pngMagic, 16))
	}
	cases := []struct {
		rule      string
		result    json.RawMessage
		plain     string // the warnings on a plain call
		agentArea string // the warnings on an AgentArea call
		check     func(t *testing.T, s ResultSummary)
	}{
		{"long text is not offloaded", resultJSON([]map[string]any{textBlock(strings.Repeat("a", 9000))}, nil), "", "text_offloaded",
			func(t *testing.T, s ResultSummary) {
				if s.Offloaded || s.TextChars != 9000 {
					t.Fatalf("%+v", s)
				}
			}},
		{"large structuredContent is not dropped", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"structuredContent": map[string]any{"r": strings.Repeat("x", 17000)}}), "", "structured_content_dropped",
			func(t *testing.T, s ResultSummary) {
				if s.StructuredContentDropped || s.StructuredContentChars < 17000 {
					t.Fatalf("%+v", s)
				}
			}},
		{"structuredContent near the limit is not judged", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"structuredContent": map[string]any{"r": strings.Repeat("é", 3000)}}), "", "structured_content_near_limit", nil},
		{"empty content is what the server sent, not structuredContent as text", resultJSON(nil, map[string]any{"structuredContent": map[string]any{"total": 3}}), "", "content_empty",
			func(t *testing.T, s ResultSummary) {
				if !s.EmptyContent || s.TextChars != 0 {
					t.Fatalf("%+v", s)
				}
			}},
		{"an image over 5 MB is the client's to take", resultJSON([]map[string]any{imageBlock("image/png", imageData(pngMagic, model.MaxImageBytes+1))}, nil), "", "image_too_large",
			func(t *testing.T, s ResultSummary) {
				if s.Images[0].Problem != "" || s.Images[0].Size != model.MaxImageBytes+1 {
					t.Fatalf("%+v", s.Images[0])
				}
			}},
		{"any image type MCP allows", resultJSON([]map[string]any{imageBlock("image/bmp", imageData("BM", 10))}, nil), "", "image_type_unsupported",
			func(t *testing.T, s ResultSummary) {
				if s.Images[0].Problem != "" {
					t.Fatalf("%+v", s.Images[0])
				}
			}},
		{"nine images", resultJSON(nine, nil), "", "too_many_images",
			func(t *testing.T, s ResultSummary) {
				if len(s.Images) != 9 || s.Images[8].Problem != "" {
					t.Fatalf("%+v", s.Images)
				}
			}},
		{"image_data_invalid holds for any call", resultJSON([]map[string]any{imageBlock("image/png", "@@@@")}, nil), "image_data_invalid", "image_data_invalid",
			func(t *testing.T, s ResultSummary) {
				if s.Images[0].Problem == "" {
					t.Fatalf("%+v", s.Images[0])
				}
			}},
		{"image_mime_mismatch holds for any call", resultJSON([]map[string]any{imageBlock("image/png", imageData(jpegMagic, 16))}, nil), "image_mime_mismatch", "image_mime_mismatch", nil},
		{"bytes of a known type under another type are a mismatch", resultJSON([]map[string]any{imageBlock("image/svg+xml", imageData(pngMagic, 16))}, nil), "image_mime_mismatch", "image_type_unsupported", nil},
		{"bytes toolscope cannot sniff under a type it does not know are not judged", resultJSON([]map[string]any{imageBlock("image/svg+xml", imageData("<svg", 16))}, nil), "", "image_type_unsupported", nil},
		{"result_malformed holds for any call", json.RawMessage(`{"content":{"type":"text"}}`), "result_malformed", "result_malformed", nil},
		{"result_type_unknown holds for any call", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"resultType": "partial"}), "result_type_unknown", "result_type_unknown", nil},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			s, ws := summarizePlain(c.result)
			if got := codesOf(ws); got != c.plain {
				t.Fatalf("plain: warnings %q (%v), want %q", got, ws, c.plain)
			}
			if c.check != nil {
				c.check(t, s)
			}
			if _, ws := summarize(c.result); codesOf(ws) != c.agentArea {
				t.Fatalf("AgentArea: warnings %q, want %q", codesOf(ws), c.agentArea)
			}
		})
	}
}
