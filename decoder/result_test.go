package decoder

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/model/modeltest"
)

var (
	pngMagic  = "\x89PNG\r\n\x1a\n"
	jpegMagic = "\xff\xd8\xff\xe0"
	gifMagic  = "GIF89a"
	webpMagic = "RIFF\x00\x00\x00\x00WEBPVP8 "
)

// imageData is base64 of n bytes starting with magic.
func imageData(magic string, n int) string {
	b := make([]byte, n)
	copy(b, magic)
	return base64.StdEncoding.EncodeToString(b)
}

func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
func imageBlock(mime, data string) map[string]any {
	return map[string]any{"type": "image", "mimeType": mime, "data": data}
}

func resultJSON(content []map[string]any, extra map[string]any) json.RawMessage {
	r := map[string]any{"content": content}
	if content == nil {
		r["content"] = []any{}
	}
	for k, v := range extra {
		r[k] = v
	}
	return modeltest.MustJSON(r)
}

func codesOf(ws []model.Warning) string {
	var c []string
	for _, w := range ws {
		c = append(c, string(w.Code))
	}
	return strings.Join(c, ",")
}

func TestSummarizeResult(t *testing.T) {
	big := map[string]any{"rows": strings.Repeat("x", 16000)}
	exact := map[string]any{"r": strings.Repeat("x", 16000-len(`{"r":""}`))}
	cases := []struct {
		rule     string
		result   json.RawMessage
		warnings string
		check    func(t *testing.T, s ResultSummary)
	}{
		{"text characters are counted in code points", resultJSON([]map[string]any{textBlock("héllo"), textBlock("wörld")}, nil), "",
			func(t *testing.T, s ResultSummary) {
				if s.TextChars != 11 || s.Offloaded || s.TextPreview != "héllo\nwörld" {
					t.Fatalf("%+v", s)
				}
			}},
		{"text of exactly 8000 characters is not offloaded", resultJSON([]map[string]any{textBlock(strings.Repeat("é", 8000))}, nil), "",
			func(t *testing.T, s ResultSummary) {
				if s.TextChars != 8000 || s.Offloaded {
					t.Fatalf("%d %v", s.TextChars, s.Offloaded)
				}
			}},
		{"text over 8000 characters is offloaded", resultJSON([]map[string]any{textBlock(strings.Repeat("a", 8001))}, nil), "text_offloaded",
			func(t *testing.T, s ResultSummary) {
				if !s.Offloaded || len([]rune(s.TextPreview)) != model.PreviewChars {
					t.Fatalf("%v %d", s.Offloaded, len(s.TextPreview))
				}
			}},
		{"an embedded text resource reaches the model with its uri", resultJSON([]map[string]any{{"type": "resource", "resource": map[string]any{"uri": "file:///a.txt", "text": "abc"}}}, nil), "",
			func(t *testing.T, s ResultSummary) {
				if s.TextPreview != "[resource file:///a.txt]\nabc" {
					t.Fatalf("%q", s.TextPreview)
				}
			}},
		{"image blocks are summarised by decoded size and type", resultJSON([]map[string]any{
			imageBlock("image/png", imageData(pngMagic, 1000)), imageBlock("image/jpeg", imageData(jpegMagic, 1001)),
			imageBlock("image/gif", imageData(gifMagic, 1002)), imageBlock("image/webp", imageData(webpMagic, 1003))}, nil), "",
			func(t *testing.T, s ResultSummary) {
				want := []model.Image{{MimeType: "image/png", Size: 1000}, {MimeType: "image/jpeg", Size: 1001}, {MimeType: "image/gif", Size: 1002}, {MimeType: "image/webp", Size: 1003}}
				if len(s.Images) != 4 {
					t.Fatalf("%+v", s.Images)
				}
				for i := range want {
					if s.Images[i] != want[i] {
						t.Fatalf("image %d: %+v, want %+v", i, s.Images[i], want[i])
					}
				}
			}},
		{"an embedded resource with an image blob is an image", resultJSON([]map[string]any{{"type": "resource", "resource": map[string]any{"uri": "x", "mimeType": "image/png", "blob": imageData(pngMagic, 64)}}}, nil), "",
			func(t *testing.T, s ResultSummary) {
				if len(s.Images) != 1 || s.Images[0].Size != 64 {
					t.Fatalf("%+v", s.Images)
				}
			}},
		{"an embedded resource with another blob is not an image", resultJSON([]map[string]any{{"type": "resource", "resource": map[string]any{"uri": "x", "mimeType": "application/pdf", "blob": "JVBERi0="}}}, nil), "",
			func(t *testing.T, s ResultSummary) {
				if len(s.Images) != 0 || s.TextChars != 0 {
					t.Fatalf("%+v", s)
				}
			}},
		{"image_type_unsupported: only PNG, JPEG, GIF and WebP", resultJSON([]map[string]any{imageBlock("image/bmp", imageData("BM", 10))}, nil), "image_type_unsupported",
			func(t *testing.T, s ResultSummary) {
				if s.Images[0].Problem == "" {
					t.Fatal("no problem on the image")
				}
			}},
		{"image_too_large: over 5 MB", resultJSON([]map[string]any{imageBlock("image/png", imageData(pngMagic, model.MaxImageBytes+1))}, nil), "image_too_large",
			func(t *testing.T, s ResultSummary) {
				if s.Images[0].Size != model.MaxImageBytes+1 || s.Images[0].Problem == "" {
					t.Fatalf("%+v", s.Images[0])
				}
			}},
		{"an image of exactly 5 MB is accepted", resultJSON([]map[string]any{imageBlock("image/png", imageData(pngMagic, model.MaxImageBytes))}, nil), "", nil},
		{"too_many_images: more than 8", resultJSON(func() []map[string]any {
			var bs []map[string]any
			for i := 0; i < 9; i++ {
				bs = append(bs, imageBlock("image/png", imageData(pngMagic, 16)))
			}
			return bs
		}(), nil), "too_many_images",
			func(t *testing.T, s ResultSummary) {
				if s.Images[7].Problem != "" || s.Images[8].Problem == "" {
					t.Fatalf("%+v", s.Images)
				}
			}},
		{"image_mime_mismatch: the bytes contradict the declared type", resultJSON([]map[string]any{imageBlock("image/png", imageData(jpegMagic, 16))}, nil), "image_mime_mismatch", nil},
		{"image_mime_mismatch: unrecognisable bytes", resultJSON([]map[string]any{imageBlock("image/png", imageData("hello", 16))}, nil), "image_mime_mismatch", nil},
		{"mime parameters and case are normalised", resultJSON([]map[string]any{imageBlock("Image/PNG; q=1", imageData(pngMagic, 16))}, nil), "",
			func(t *testing.T, s ResultSummary) {
				if s.Images[0].MimeType != "image/png" {
					t.Fatalf("%+v", s.Images[0])
				}
			}},
		{"image_data_invalid: not base64", resultJSON([]map[string]any{imageBlock("image/png", "@@@@")}, nil), "image_data_invalid", nil},
		{"structuredContent size is measured as compact JSON", json.RawMessage(`{"content":[{"type":"text","text":"ok"}],"structuredContent": { "a" : [1, 2] , "b":"é"}}`), "",
			func(t *testing.T, s ResultSummary) {
				if s.StructuredContentBytes != len(`{"a":[1,2],"b":"é"}`) || s.StructuredContentChars != 19 || s.StructuredContentDropped {
					t.Fatalf("%d %d", s.StructuredContentBytes, s.StructuredContentChars)
				}
			}},
		{"structuredContent of exactly 16000 characters is kept (spaced it would be 16001)", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"structuredContent": exact}), "structured_content_near_limit",
			func(t *testing.T, s ResultSummary) {
				if s.StructuredContentChars != 16000 || s.StructuredContentDropped {
					t.Fatalf("%d", s.StructuredContentChars)
				}
			}},
		{"structured_content_near_limit: compact fits, Python's spaced ASCII form does not", resultJSON([]map[string]any{textBlock("ok")},
			map[string]any{"structuredContent": map[string]any{"r": strings.Repeat("é", 3000)}}), "structured_content_near_limit",
			func(t *testing.T, s ResultSummary) {
				if s.StructuredContentDropped || s.StructuredContentChars != 3008 {
					t.Fatalf("%+v", s)
				}
			}},
		{"structured_content_dropped: over 16000 characters", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"structuredContent": big}), "structured_content_dropped",
			func(t *testing.T, s ResultSummary) {
				if !s.StructuredContentDropped {
					t.Fatal("not dropped")
				}
			}},
		{"structuredContent may be any JSON value (2026-07-28)", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"structuredContent": []any{1, 2}}), "",
			func(t *testing.T, s ResultSummary) {
				if s.StructuredContentBytes != 5 {
					t.Fatalf("%d", s.StructuredContentBytes)
				}
			}},
		{"empty content: the model reads structuredContent", resultJSON(nil, map[string]any{"structuredContent": map[string]any{"total": 3}}), "content_empty",
			func(t *testing.T, s ResultSummary) {
				if !s.EmptyContent || s.TextPreview != `{"total":3}` || s.TextChars != 11 {
					t.Fatalf("%+v", s)
				}
			}},
		{"isError carries the error text", resultJSON([]map[string]any{textBlock("order not found")}, map[string]any{"isError": true}), "",
			func(t *testing.T, s ResultSummary) {
				if !s.IsError || s.Error != "order not found" {
					t.Fatalf("%+v", s)
				}
			}},
		{"agentarea/replayed is read from the result's _meta", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"_meta": map[string]any{"agentarea/replayed": true}}), "",
			func(t *testing.T, s ResultSummary) {
				if !s.Replayed {
					t.Fatal("not replayed")
				}
			}},
		{"a missing resultType is complete", resultJSON([]map[string]any{textBlock("ok")}, nil), "",
			func(t *testing.T, s ResultSummary) {
				if s.ResultType != resultComplete {
					t.Fatal(s.ResultType)
				}
			}},
		{"resultType input_required is read", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"resultType": "input_required", "requestState": "s"}), "",
			func(t *testing.T, s ResultSummary) {
				if s.ResultType != resultInputRequired {
					t.Fatal(s.ResultType)
				}
			}},
		// MCP allows content and isError beside input_required (the schema
		// forbids no member): only a result that gives the client nothing
		// to go on with warns.
		{"input_required with neither inputRequests nor requestState warns", resultJSON([]map[string]any{textBlock("ok")},
			map[string]any{"resultType": "input_required", "isError": true, "inputRequests": map[string]any{}}), "input_required_empty", nil},
		{"an unknown resultType warns", resultJSON([]map[string]any{textBlock("ok")}, map[string]any{"resultType": "partial"}), "result_type_unknown", nil},
		{"a _meta that is not an object is reported, the rest still read", json.RawMessage(`{"content":[{"type":"text","text":"ok"}],"_meta":3,"isError":true}`), "result_malformed",
			func(t *testing.T, s ResultSummary) {
				if s.TextChars != 2 || !s.IsError {
					t.Fatalf("%+v", s)
				}
			}},
		{"a result that is not an object is malformed", json.RawMessage(`[1]`), "result_malformed", nil},
		{"content that is not an array is malformed", json.RawMessage(`{"content":{"type":"text"}}`), "result_malformed", nil},
		{"a bad block is reported and the others read", json.RawMessage(`{"content":[3,{"type":"text","text":"ok"}]}`), "result_malformed",
			func(t *testing.T, s ResultSummary) {
				if s.TextChars != 2 {
					t.Fatalf("%+v", s)
				}
			}},
		{"audio and resource links are content, not read", resultJSON([]map[string]any{{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}, {"type": "resource_link", "uri": "x", "name": "n"}}, nil), "",
			func(t *testing.T, s ResultSummary) {
				if s.EmptyContent || s.TextChars != 0 || len(s.Images) != 0 {
					t.Fatalf("%+v", s)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			s, ws := summarize(c.result)
			if got := codesOf(ws); got != c.warnings {
				t.Fatalf("warnings %q (%v), want %q", got, ws, c.warnings)
			}
			if c.check != nil {
				c.check(t, s)
			}
		})
	}
}

func TestResultApplyTo(t *testing.T) {
	small := resultJSON([]map[string]any{textBlock("done"), imageBlock("image/png", imageData(pngMagic, 100))},
		map[string]any{"structuredContent": map[string]any{"n": 1}, "_meta": map[string]any{"agentarea/replayed": true}})
	s, _ := summarize(small)
	var ev model.Event
	s.ApplyTo(&ev)
	if ev.TextChars != 4 || ev.TextPreview != "done" || ev.Offloaded || len(ev.Images) != 1 || string(ev.StructuredContent) != `{"n":1}` ||
		ev.StructuredContentBytes != 7 || ev.StructuredContentDropped || !ev.Replayed || ev.ResultType != "complete" || ev.IsError {
		t.Fatalf("%+v", ev)
	}
	t.Run("structuredContent over 64 KiB is not kept raw", func(t *testing.T) {
		huge := resultJSON([]map[string]any{textBlock("x")}, map[string]any{"structuredContent": map[string]any{"b": strings.Repeat("y", 70000)}})
		s, _ := summarize(huge)
		var ev model.Event
		s.ApplyTo(&ev)
		if ev.StructuredContent != nil || ev.StructuredContentBytes < 70000 || !ev.StructuredContentDropped {
			t.Fatalf("kept %d bytes, bytes %d", len(ev.StructuredContent), ev.StructuredContentBytes)
		}
	})
	t.Run("an isError result fills error", func(t *testing.T) {
		s, _ := summarize(resultJSON([]map[string]any{textBlock("boom")}, map[string]any{"isError": true}))
		var ev model.Event
		s.ApplyTo(&ev)
		if !ev.IsError || ev.Error != "boom" {
			t.Fatalf("%+v", ev)
		}
	})
	t.Run("a JSON-RPC error fills error and rpc_code", func(t *testing.T) {
		var ev model.Event
		ErrorSummary(&jsonrpc.RPCError{Code: -32602, Message: "unknown tool"}).ApplyTo(&ev)
		if !ev.IsError || ev.Error != "unknown tool" || ev.RPCCode != -32602 {
			t.Fatalf("%+v", ev)
		}
	})
}

func TestSpacedASCIIJSONLen(t *testing.T) {
	// Expected lengths are len(json.dumps(json.loads(s))) in Python 3.
	cases := []struct {
		compact string
		want    int
	}{
		{`{"a":1,"b":[1,2]}`, len(`{"a": 1, "b": [1, 2]}`)},
		{`{"k":"a,b:c"}`, len(`{"k": "a,b:c"}`)},
		{`["é"]`, len(`["\u00e9"]`)},
		{`["😀"]`, len(`["\ud83d\ude00"]`)},
		{`["\\",",",":"]`, len(`["\\", ",", ":"]`)},
	}
	for _, c := range cases {
		if got := spacedASCIIJSONLen([]byte(c.compact)); got != c.want {
			t.Errorf("spacedASCIIJSONLen(%s) = %d, want %d", c.compact, got, c.want)
		}
	}
}
