package decoder

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"toolscope/model"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/ (written by
// testdata/make_fuzz_seeds.py); `go test` runs them as regression cases.

func FuzzSummarizeResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"ok"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}],"structuredContent":{"a":1},"isError":false,"_meta":{"agentarea/replayed":true},"resultType":"complete"}`))
	f.Add([]byte(`{"content":[]}`))
	f.Fuzz(func(t *testing.T, result []byte) {
		s, ws := summarize(result)
		if s.TextChars < 0 || s.Offloaded != (s.TextChars > model.MaxTextChars) {
			t.Fatalf("text %d offloaded %v", s.TextChars, s.Offloaded)
		}
		if utf8.RuneCountInString(s.TextPreview) > model.PreviewChars || utf8.RuneCountInString(s.Error) > model.PreviewChars {
			t.Fatal("preview too long")
		}
		if s.StructuredContentDropped != (s.StructuredContentChars > model.MaxStructuredChars) {
			t.Fatal("dropped disagrees with the size")
		}
		if s.ResultType == "" {
			t.Fatal("no result type")
		}
		for _, w := range ws {
			if w.Code == "" || w.Message == "" {
				t.Fatalf("empty warning %+v", w)
			}
		}
		for _, img := range s.Images {
			if img.Size < 0 || (img.Size > model.MaxImageBytes && img.Problem == "") {
				t.Fatalf("image %+v", img)
			}
		}
		var ev model.Event
		s.ApplyTo(&ev)
		if len(ev.StructuredContent) > model.MaxKeptStructuredBytes {
			t.Fatal("kept too much structured content")
		}
	})
}

var agentNameRE = regexp.MustCompile(`^mcp__[a-z0-9_-]+__[a-zA-Z0-9_-]*$`)

func FuzzQualifiedName(f *testing.F) {
	f.Add("My GitHub!", "get_order")
	f.Add("Constractio — инструменты сметчика", "estimate")
	f.Add("工具", "run")
	f.Fuzz(func(t *testing.T, instance, tool string) {
		got := QualifiedName(instance, tool)
		if len(got) > MaxAgentNameLen {
			t.Fatalf("%q is %d characters", got, len(got))
		}
		full := "mcp__" + serverLabel(instance) + "__" + ToolLabel(tool)
		if len(full) <= MaxAgentNameLen {
			if got != full || !agentNameRE.MatchString(got) {
				t.Fatalf("%q", got)
			}
		} else if len(got) != MaxAgentNameLen || !strings.HasPrefix(full, got[:MaxAgentNameLen-digestLen-1]) {
			t.Fatalf("cut name %q", got)
		}
		for i := 0; i < len(got); i++ {
			if !isNameChar(rune(got[i])) {
				t.Fatalf("%q holds %q", got, got[i])
			}
		}
		if QualifiedName(instance, tool) != got {
			t.Fatal("not deterministic")
		}
	})
}
