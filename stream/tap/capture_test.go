package tap

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"toolscope/model"
)

// wireSink keeps the wire events a tap emits.
type wireSink struct {
	mu    sync.Mutex
	wires []model.Event
}

func (s *wireSink) Emit(e model.Event) {
	if e.Kind == model.KindWire {
		s.mu.Lock()
		s.wires = append(s.wires, e)
		s.mu.Unlock()
	}
}

func (s *wireSink) byMethod(method string) []*model.Wire {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*model.Wire
	for _, e := range s.wires {
		var m struct {
			Method string `json:"method"`
		}
		if b := e.Wire.Request.Body; b != nil && json.Unmarshal([]byte(b.Text), &m) == nil && m.Method == method {
			out = append(out, e.Wire)
		}
	}
	return out
}

func startCapturingTap(t *testing.T, upstream string, limit int64) (*Tap, *wireSink) {
	t.Helper()
	sink := &wireSink{}
	tp, err := New(Config{Name: "cap", Listen: "127.0.0.1:0", Upstream: upstream, RecordBodyLimit: limit}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	return tp, sink
}

// TestCaptureSDKSession: a go-sdk client's session with a go-sdk server,
// through a capturing tap: each exchange is one wire event holding the
// request as sent and the response's SSE events with their times.
func TestCaptureSDKSession(t *testing.T) {
	upstream := newSDKServer(t, nil)
	tp, sink := startCapturingTap(t, upstream.URL, 1<<20)
	h := &harness{t: t, tap: tp}
	res, progress := sdkCall(t, streamable("http://"+tp.Addr()), 1, 3, 3)
	h.shutdown()
	if len(progress) != 3 || res.IsError {
		t.Fatalf("call: %v %v", res, progress)
	}
	if got := sink.byMethod("initialize"); len(got) != 1 {
		t.Fatalf("%d initialize exchanges recorded", len(got))
	}
	calls := sink.byMethod("tools/call")
	if len(calls) != 1 {
		t.Fatalf("%d tools/call exchanges recorded", len(calls))
	}
	w := calls[0]
	if w.Transport != model.TransportHTTP || w.Request.Method != "POST" || w.Request.HTTPVersion != "HTTP/1.1" {
		t.Errorf("request: %+v", w.Request)
	}
	if !strings.Contains(w.Request.Body.Text, `"name":"count"`) || w.Request.Body.Cut || w.Request.Body.Size != int64(len(w.Request.Body.Text)) {
		t.Errorf("request body: %+v", w.Request.Body)
	}
	r := w.Response
	if r.Status != 200 || len(r.Events) != 4 || r.Body != nil {
		t.Fatalf("response: %+v", r)
	}
	prev := 0.0
	for i, e := range r.Events {
		if e.AtMS < prev || e.AtMS < r.HeadMS-1 || e.AtMS > r.EndMS+1 {
			t.Errorf("event %d at %v ms (head %v, end %v, previous %v)", i, e.AtMS, r.HeadMS, r.EndMS, prev)
		}
		prev = e.AtMS
		want := "notifications/progress"
		if i == 3 {
			want = `"result"`
		}
		if !strings.Contains(e.Data, want) {
			t.Errorf("event %d: %s, want %s", i, e.Data, want)
		}
	}
	var ct string
	for _, kv := range r.Headers {
		if kv[0] == "Content-Type" {
			ct = kv[1]
		}
	}
	if ct != "text/event-stream" {
		t.Errorf("response headers %v", r.Headers)
	}
}

// TestCaptureBodyLimit: a body over the limit is kept up to it and says so.
func TestCaptureBodyLimit(t *testing.T) {
	upstream := newSDKServer(t, nil)
	tp, sink := startCapturingTap(t, upstream.URL, 100)
	h := &harness{t: t, tap: tp}
	sdkCall(t, streamable("http://"+tp.Addr()), 1, 2, 2)
	h.shutdown()
	sink.mu.Lock()
	defer sink.mu.Unlock()
	cut := 0
	for _, e := range sink.wires {
		if b := e.Wire.Request.Body; b != nil && b.Cut {
			cut++
			if len(b.Text) > 100 || b.Size <= 100 {
				t.Errorf("a cut body: %d bytes kept of %d", len(b.Text), b.Size)
			}
		}
		if r := e.Wire.Response; r != nil {
			for _, ev := range r.Events {
				if len(ev.Data) > 100 {
					t.Errorf("an event of %d bytes kept past the limit", len(ev.Data))
				}
			}
		}
	}
	if cut == 0 {
		t.Error("no request body was cut at 100 bytes")
	}
}

// TestNoCaptureWithoutLimit: without a body limit the tap emits no wire event.
func TestNoCaptureWithoutLimit(t *testing.T) {
	upstream := newSDKServer(t, nil)
	tp, sink := startCapturingTap(t, upstream.URL, 0)
	h := &harness{t: t, tap: tp}
	sdkCall(t, streamable("http://"+tp.Addr()), 1, 1, 1)
	h.shutdown()
	if len(sink.wires) != 0 {
		t.Errorf("%d wire events without --record", len(sink.wires))
	}
}
