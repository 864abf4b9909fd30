package decoder

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

var resultCases = []string{
	`{"content":[{"type":"text","text":"order A-17: shipped"}],"structuredContent":{"status":"shipped"}}`,
	`{"content":[{"type":"text","text":"line one\nline \"two\" \u00e9\ud83d\ude00"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}],"isError":false,"_meta":{"agentarea/replayed":true},"resultType":"complete"}`,
	` { "content" : [ ] , "structuredContent" : null } `,
	`{"content":[{"type":"text","text":"x","annotations":{"audience":["user"]},"_meta":{}}]}`,
	`{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"},{}]}`,
	`{"content":[{"type":null,"text":null,"data":null,"mimeType":null}]}`,
	`{"content":[{"type":"text","text":"\ud800 lone \udc00 halves \ud800\u0041"}]}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"bad utf8 \xff\xfe end\"}]}",
	`{"content":[{"type":"resource","resource":{"uri":"u","text":"t"}}]}`,
	`{"Content":[],"content":[]}`,
	`{"content":[{"type":"text","Text":"x"}]}`,
	`{"content":[{"type":"text","text":"a","text":"b"}]}`,
	`{"content":[],"content":[{"type":"text","text":"b"}]}`,
	`{"content":[],"isError":true,"isError":false}`,
	`{"content":[null]}`,
	`{"content":[{"type":1}]}`,
	`{"content":null}`,
	`{"structuredContent":{}}`,
	`{"content":[],}`,
	`{"content":[{"type":"text","text":"x"},]}`,
	`{"content":[]} x`,
	`{"content":[{"type":"text","text":"x"}],"other":[1,2,{"a":-0.5e+3}],"isError":tru}`,
	`{}`,
}

// The one-pass result reader gives exactly encoding/json's reading wherever
// it answers, and answers for the everyday results.
func TestResultOnePass(t *testing.T) {
	for _, c := range resultCases {
		checkResultOnePass(t, []byte(c))
	}
	for _, c := range resultCases[:8] {
		if _, _, ok := decodeResultOnePass(trimmedResult(c)); !ok {
			t.Errorf("one-pass reader declined the everyday result %s", c)
		}
	}
}

func trimmedResult(s string) []byte {
	b := []byte(s)
	for len(b) > 0 && (b[0] == ' ' || b[len(b)-1] == ' ') {
		if b[0] == ' ' {
			b = b[1:]
		} else {
			b = b[:len(b)-1]
		}
	}
	return b
}

func FuzzResultOnePass(f *testing.F) {
	for _, c := range resultCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, result []byte) { checkResultOnePass(t, result) })
}

func checkResultOnePass(t *testing.T, result []byte) {
	t.Helper()
	if len(result) == 0 || result[0] != '{' {
		return
	}
	w, blocks, ok := decodeResultOnePass(result)
	if !ok {
		return
	}
	w2, blocks2, ok2 := decodeResultReflect(result)
	if !ok2 {
		t.Fatalf("one-pass reader took %q, encoding/json did not", result)
	}
	if !reflect.DeepEqual(w, w2) || !reflect.DeepEqual(blocks, blocks2) {
		t.Fatalf("%q: one-pass %+v %+v, encoding/json %+v %+v", result, w, blocks, w2, blocks2)
	}
}

// printableASCII agrees with a byte-by-byte reading at every length and
// position of an odd byte.
func TestPrintableASCII(t *testing.T) {
	for n := 0; n <= 24; n++ {
		for at := -1; at < n; at++ {
			for _, odd := range []byte{0x00, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff, '"'} {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a' + byte(i%26)
				}
				if at >= 0 {
					b[at] = odd
				}
				want := true
				for _, c := range b {
					want = want && c >= 0x20 && c < 0x80
				}
				if got := printableASCII(b); got != want {
					t.Fatalf("printableASCII(%q) = %v", b, got)
				}
			}
		}
	}
}

// compactJSON gives json.Compact's text, or raw itself where that fails, as
// when it compacted every text holding a whitespace byte.
func FuzzCompactJSON(f *testing.F) {
	for _, c := range []string{`{"a":"row name","b":[1, 2]}`, `{"a":"x\" y"}`, `"un terminated`, `{"a" : 1}`, `[" ",	"\\"]`} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := raw
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			want = buf.Bytes()
		}
		if got := compactJSON(raw); !bytes.Equal(got, want) {
			t.Fatalf("compactJSON(%q) = %q, want %q", raw, got, want)
		}
	})
}

// replayedOnePass finds what the map decode finds, wherever it answers.
func FuzzReplayedOnePass(f *testing.F) {
	for _, c := range []string{`{"agentarea/replayed":true}`, `{"a":1,"agentarea/replayed":false,"agentarea/replayed":"x"}`, `{"agentarea\/replayed":true}`, `{}`, `{"b":[1,{"c":null}]}`, `[]`, `{"agentarea/replayed":tru}`} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, m []byte) {
		m = nonNull(m)
		if m == nil {
			return
		}
		rep, found, ok := replayedOnePass(m)
		if !ok {
			return
		}
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(m, &meta); err != nil {
			t.Fatalf("%q: one-pass took it, encoding/json says %v", m, err)
		}
		want, wantFound := meta[MetaReplayed]
		if found != wantFound || !bytes.Equal(rep, want) {
			t.Fatalf("%q: one-pass %q %v, encoding/json %q %v", m, rep, found, want, wantFound)
		}
	})
}
