package model

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestCallJSONResultNamesFieldsAsTheLines: an attempt's result in a call's
// document (get_call, y) names its fields as a tool.result line does.
func TestCallJSONResultNamesFieldsAsTheLines(t *testing.T) {
	s := NewStore(Options{})
	call := Event{Time: at(0), Source: SourceTap, SourceName: "tap", Kind: KindToolCall, Tool: "render", Exchange: "1"}
	s.Apply(call)
	result := call
	result.Time, result.Kind, result.HTTPStatus, result.TextChars, result.TextPreview, result.DurationMS =
		at(5), KindToolResult, 200, 5, "done.", 5
	result.StructuredContent = json.RawMessage(`{"n":1}`)
	s.Apply(result)
	snap := s.Snapshot()
	b, err := json.Marshal(snap.CallJSON(snap.Calls[0], at(10)))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Attempts []struct {
			Result map[string]json.RawMessage `json:"result"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Attempts) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	var keys []string
	for k := range doc.Attempts[0].Result {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"duration_ms", "http_status", "is_error", "structured_content", "text_chars", "text_preview", "time"}
	if !slices.Equal(keys, want) {
		t.Errorf("result keys %v, want %v", keys, want)
	}
}
