package tap

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func parseAll(max int64, chunks ...string) []sseEvent {
	var out []sseEvent
	p := newSSEParser(max, func(e sseEvent) { out = append(out, e) })
	for _, c := range chunks {
		p.feed([]byte(c))
	}
	return out
}

func TestSSEParser(t *testing.T) {
	ev := func(event, id, data string) sseEvent { return sseEvent{Event: event, ID: id, Data: []byte(data)} }
	cases := []struct {
		name   string
		chunks []string
		want   []sseEvent
	}{
		{"lf", []string{"event: message\ndata: {\"a\":1}\n\n"}, []sseEvent{ev("message", "", `{"a":1}`)}},
		{"crlf", []string{"data: x\r\nid: 7\r\n\r\n"}, []sseEvent{ev("", "7", "x")}},
		{"cr", []string{"data: x\rdata: y\r\r"}, []sseEvent{ev("", "", "x\ny")}},
		{"crlf split across chunks", []string{"data: a\r", "\n\r", "\ndata: b\n\n"}, []sseEvent{ev("", "", "a"), ev("", "", "b")}},
		{"byte by byte", strings.Split("data: hello\n\n", ""), []sseEvent{ev("", "", "hello")}},
		{"comments and unknown fields", []string{": ping\nretry: 5\nfoo: bar\ndata:no-space\n\n"}, []sseEvent{ev("", "", "no-space")}},
		{"no data dispatches nothing", []string{"event: x\n\n\n"}, nil},
		{"id persists", []string{"id: 1\ndata: a\n\ndata: b\n\n"}, []sseEvent{ev("", "1", "a"), ev("", "1", "b")}},
		{"unterminated event is dropped", []string{"data: a\n\ndata: b\n"}, []sseEvent{ev("", "", "a")}},
		{"field without colon", []string{"data\n\n"}, []sseEvent{ev("", "", "")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := parseAll(1<<20, tc.chunks...)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d events %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if got[i].Event != tc.want[i].Event || got[i].ID != tc.want[i].ID || string(got[i].Data) != string(tc.want[i].Data) {
					t.Errorf("event %d = %+v (data %q), want %+v (data %q)", i, got[i], got[i].Data, tc.want[i], tc.want[i].Data)
				}
			}
		})
	}
}

func TestSSEParserOversizedEvent(t *testing.T) {
	big := strings.Repeat("x", 100)
	got := parseAll(50, "data: "+big+"\n\ndata: ok\n\n", "data: "+big[:30]+"\ndata: "+big[:30]+"\n\ndata: fine\n\n")
	var kinds []string
	for _, e := range got {
		kinds = append(kinds, fmt.Sprintf("%v:%s", e.Oversized, e.Data))
	}
	if want := []string{"true:", "false:ok", "true:", "false:fine"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("got %v, want %v", kinds, want)
	}
}

func TestSSEParserResyncsAfterGap(t *testing.T) {
	var got []string
	p := newSSEParser(1<<20, func(e sseEvent) { got = append(got, string(e.Data)) })
	p.feed([]byte("data: first\n\ndata: cut in the mid"))
	p.gap()
	p.feed([]byte("dle of an event\n\ndata: after\n\n"))
	if want := []string{"first", "after"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSidePipeNeverBlocksAndBoundsMemory(t *testing.T) {
	p := newSidePipe(1000)
	chunk := make([]byte, 300)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	for i := 0; i < 10; i++ { // 3000 bytes with no reader: never blocks
		p.write(chunk)
	}
	if len(p.buf) > 1000 {
		t.Fatalf("holds %d bytes over its limit", len(p.buf))
	}
	p.finish(io.EOF)
	var total int
	var sawGap bool
	buf := make([]byte, 128)
	for {
		n, err := p.Read(buf)
		total += n
		if err == errGap {
			sawGap = true
			continue
		}
		if err != nil {
			if err != io.EOF {
				t.Fatalf("end %v", err)
			}
			break
		}
	}
	if total != 900 || !sawGap {
		t.Errorf("read %d bytes (want the 900 before the limit), gap reported %v", total, sawGap)
	}
}

func TestSidePipeStopDropsWrites(t *testing.T) {
	p := newSidePipe(1 << 20)
	p.write([]byte("abc"))
	p.stop()
	p.write([]byte("def"))
	p.finish(errClientGone)
	if err := p.wait(); err != errClientGone || len(p.buf) != 0 {
		t.Errorf("wait = %v, buffered %d", err, len(p.buf))
	}
}
