package sse

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func parseAll(max int64, chunks ...string) []Event {
	var out []Event
	p := NewParser(max, func(e Event) { out = append(out, e) })
	for _, c := range chunks {
		p.Feed([]byte(c))
	}
	return out
}

func TestSSEParser(t *testing.T) {
	ev := func(event, id, data string) Event { return Event{Event: event, ID: id, Data: []byte(data)} }
	cases := []struct {
		name   string
		chunks []string
		want   []Event
	}{
		{"lf", []string{"event: message\ndata: {\"a\":1}\n\n"}, []Event{ev("message", "", `{"a":1}`)}},
		{"crlf", []string{"data: x\r\nid: 7\r\n\r\n"}, []Event{ev("", "7", "x")}},
		{"cr", []string{"data: x\rdata: y\r\r"}, []Event{ev("", "", "x\ny")}},
		{"crlf split across chunks", []string{"data: a\r", "\n\r", "\ndata: b\n\n"}, []Event{ev("", "", "a"), ev("", "", "b")}},
		{"byte by byte", strings.Split("data: hello\n\n", ""), []Event{ev("", "", "hello")}},
		{"comments and unknown fields", []string{": ping\nretry: 5\nfoo: bar\ndata:no-space\n\n"}, []Event{ev("", "", "no-space")}},
		{"no data dispatches nothing", []string{"event: x\n\n\n"}, nil},
		{"id persists", []string{"id: 1\ndata: a\n\ndata: b\n\n"}, []Event{ev("", "1", "a"), ev("", "1", "b")}},
		{"unterminated event is dropped", []string{"data: a\n\ndata: b\n"}, []Event{ev("", "", "a")}},
		{"field without colon", []string{"data\n\n"}, []Event{ev("", "", "")}},
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
	p := NewParser(1<<20, func(e Event) { got = append(got, string(e.Data)) })
	p.Feed([]byte("data: first\n\ndata: cut in the mid"))
	p.Gap()
	p.Feed([]byte("dle of an event\n\ndata: after\n\n"))
	if want := []string{"first", "after"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestReadSSE: Read hands over events until onEvent is done, takes the
// last event even without its blank line, and fails on an oversized one.
func TestReadSSE(t *testing.T) {
	var got []string
	err := Read(strings.NewReader("data: a\r\n\r\n: ping\n\ndata: b\ndata: c\n\ndata: last"), 1<<20, func(e Event) bool {
		got = append(got, string(e.Data))
		return false
	})
	if want := []string{"a", "b\nc", "last"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	got = nil
	err = Read(strings.NewReader("data: a\n\ndata: b\n\ndata: c\n\n"), 1<<20, func(e Event) bool {
		got = append(got, string(e.Data))
		return string(e.Data) == "b"
	})
	if want := []string{"a", "b"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("stopping: got %q, %v; want %q", got, err, want)
	}
	err = Read(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50, func(Event) bool { return false })
	if err == nil || !strings.Contains(err.Error(), "over 50 bytes") {
		t.Fatalf("oversized event: %v", err)
	}
}
