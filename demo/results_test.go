package demo

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

func ruleData(t *testing.T, result any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	body := jsonrpc.Read([]byte(`{"jsonrpc":"2.0","id":1,"result":` + string(raw) + `}`))
	data := map[string]any{}
	applyResultRules(body.Messages[0].Summary, data)
	return data
}

func TestResultRulesOffloadAndDrop(t *testing.T) {
	report, lines := ledgerReport(200)
	data := ruleData(t, map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": report}},
		"structuredContent": map[string]any{"lines": lines},
	})
	result, _ := data["result"].(string)
	if !strings.HasPrefix(result, "[Tool result offloaded: ") || len([]rune(result)) > offloadPreviewChars+120 {
		t.Errorf("a %d-character text should be offloaded to a pointer and a preview, got %d characters", len(report), len(result))
	}
	if data["structured_content_dropped"] != true || data["structured_content"] != nil {
		t.Errorf("structured content over 16000 characters must be dropped: %v", data["structured_content_dropped"])
	}
	if data["success"] != true {
		t.Errorf("success = %v", data["success"])
	}
}

func TestResultRulesKeepSmallResults(t *testing.T) {
	data := ruleData(t, map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": "ok"}},
		"structuredContent": map[string]any{"rows": 3},
		"_meta":             map[string]any{"agentarea/replayed": true},
	})
	if data["result"] != "ok" || data["structured_content_dropped"] != nil || data["replayed"] != true {
		t.Errorf("data %v", data)
	}
	if sc, _ := data["structured_content"].(json.RawMessage); string(sc) != `{"rows":3}` {
		t.Errorf("structured_content %s", sc)
	}
	// Exactly at the limits nothing is offloaded or dropped.
	data = ruleData(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("é", model.MaxTextChars)}}})
	if data["result"] != strings.Repeat("é", model.MaxTextChars) {
		t.Error("8000 characters (not bytes) stay with the model")
	}
}

func TestResultRulesListImagesWithoutBytes(t *testing.T) {
	img := barChartPNG([]float64{0.2, 0.9}, color.RGBA{0, 0, 255, 255})
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Fatalf("the chart is not a PNG: %v", err)
	}
	b64 := base64.StdEncoding.EncodeToString(img)
	data := ruleData(t, map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "two charts"},
		map[string]any{"type": "image", "mimeType": "image/png", "data": b64},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///c.png", "mimeType": "image/png", "blob": b64}},
	}})
	images, _ := data["images"].([]map[string]any)
	if len(images) != 2 {
		t.Fatalf("images %v", data["images"])
	}
	for _, im := range images {
		if im["mime_type"] != "image/png" || im["size"] != len(img) || !strings.HasPrefix(im["id"].(string), "img_") {
			t.Errorf("image %v, want png of %d bytes", im, len(img))
		}
	}
	raw, _ := json.Marshal(data)
	if bytes.Contains(raw, []byte(b64[:40])) {
		t.Error("the event must not carry image bytes")
	}
}

func TestResultRulesErrorAndEmptyContent(t *testing.T) {
	data := ruleData(t, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "bad invoice"}}})
	if data["success"] != false || data["error"] != "bad invoice" {
		t.Errorf("isError: %v", data)
	}
	data = ruleData(t, map[string]any{"content": []any{}, "structuredContent": map[string]any{"a": 1}})
	if data["result"] != `{"a":1}` {
		t.Errorf("with empty content the model reads structuredContent: %v", data["result"])
	}
}
