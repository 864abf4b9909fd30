package decoder

import (
	"strings"
	"testing"
)

// BenchmarkSummarizeResult: a typical result with 2 KB of text, a 100 KB
// PNG and 4 KB of structured content.
func BenchmarkSummarizeResult(b *testing.B) {
	rows := make([]any, 0, 100)
	for i := 0; i < 100; i++ {
		rows = append(rows, map[string]any{"id": i, "name": "row name"})
	}
	result := resultJSON([]map[string]any{textBlock(strings.Repeat("Order A-17 shipped. ", 100)), imageBlock("image/png", imageData(pngMagic, 100_000))},
		map[string]any{"structuredContent": map[string]any{"rows": rows}})
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	for b.Loop() {
		if s, _ := summarize(result); len(s.Images) != 1 {
			b.Fatal("no image")
		}
	}
}

// BenchmarkSummarizeResultText: a small text-only result, the common case.
func BenchmarkSummarizeResultText(b *testing.B) {
	result := resultJSON([]map[string]any{textBlock("Order A-17: shipped on 2026-11-29")}, nil)
	b.ReportAllocs()
	for b.Loop() {
		summarize(result)
	}
}
