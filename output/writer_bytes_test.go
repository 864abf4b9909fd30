package output

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// wireEvent is an exchange of a tool call whose request and response
// bodies are each body bytes of JSON, new bytes for every event (as a tap
// makes them), so what the queue holds shows in the heap.
func wireEvent(i, body int) model.Event {
	pad := func(what string) string {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"%s":{"text":"`, i, what)
		return head + strings.Repeat("x", body-len(head)-3) + `"}}`
	}
	return model.Event{Time: at(i), Source: model.SourceTap, SourceName: "tap", Kind: model.KindWire, Exchange: fmt.Sprintf("x%d", i),
		Wire: &model.Wire{Transport: "http",
			Request: &model.WireRequest{Method: "POST", Host: "127.0.0.1:7070", URL: "/mcp", HTTPVersion: "HTTP/1.1",
				Headers: [][2]string{{"Content-Type", "application/json"}}, Body: &model.WireBody{Text: pad("params"), Size: int64(body)}},
			Response: &model.WireResponse{Status: 200, HTTPVersion: "HTTP/1.1", Headers: [][2]string{{"Content-Type", "application/json"}},
				Body: &model.WireBody{Text: pad("result"), Size: int64(body)}}}}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestStalledRecordingBoundedByBytes: a recording stalled on its disk,
// fed wire lines of 512 KiB (bodies at the default --record-body-limit),
// holds at most its QueueBytes, not 8,192 of them (4 GiB): the rest are
// dropped whole and counted, and once it can write it says, in an
// output_overflow line, how many it lost. (A bound of 16 MiB, not the
// default 64: under -race each of these lines takes ~0.2 s to encode.)
func TestStalledRecordingBoundedByBytes(t *testing.T) {
	const events, body, bound = 128, 256 << 10, 16 << 20 // 64 MiB offered
	if w := NewWriter(&bytes.Buffer{}, WriterConfig{}); w.cfg.QueueBytes != 64<<20 {
		t.Errorf("default QueueBytes %d, want 64 MiB", w.cfg.QueueBytes)
	}
	g := &gatedWriter{open: make(chan struct{})}
	var got bytes.Buffer
	g.copy = &got
	before := heapInUse()
	w := NewWriter(g, WriterConfig{Name: "--record rec.jsonl", Wire: true, QueueBytes: bound, CloseTimeout: time.Minute})
	for i := range events {
		w.Emit(wireEvent(i, body))
	}
	queued, held := w.queuedBytes.Load(), int64(heapInUse())-int64(before)
	t.Logf("queued %d MiB, heap grew %d MiB, for %d MiB offered", queued>>20, held>>20, events*2*body>>20)
	if queued > bound {
		t.Errorf("%d bytes queued, over the bound of %d", queued, bound)
	}
	// The queue's events, one being written, and the heap's noise.
	if held > bound+8<<20 {
		t.Errorf("the stalled writer holds %d MiB of heap, over its bound of %d MiB", held>>20, bound>>20)
	}

	close(g.open)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var written, lost int
	lostRe := regexp.MustCompile(`could not keep up: (\d+) lines lost here \(its queue of 8192 lines or 16 MiB was full\)`)
	for _, line := range strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n") {
		if strings.HasPrefix(line, `{"time":`) && strings.Contains(line[:min(len(line), 200)], `"kind":"wire"`) {
			written++
			continue
		}
		e, err := DecodeLine([]byte(line))
		if err != nil {
			t.Fatalf("%v: %.200s", err, line)
		}
		m := lostRe.FindStringSubmatch(e.Message)
		if m == nil || e.Code != string(model.WarnOutputOverflow) {
			t.Fatalf("line: %.300s", line)
		}
		n, _ := strconv.Atoi(m[1])
		lost += n
	}
	if written+lost != events || lost == 0 || written*2*body > bound+2*body {
		t.Errorf("%d lines written, %d said lost, of %d", written, lost, events)
	}
	if q := w.queuedBytes.Load(); q != 0 {
		t.Errorf("%d bytes still counted queued after Close", q)
	}
}

// TestLargeEventTakenIntoAnEmptyQueue: an event over QueueBytes is still
// written when nothing else waits (else it never could be); behind
// another it is dropped and counted.
func TestLargeEventTakenIntoAnEmptyQueue(t *testing.T) {
	g := &gatedWriter{open: make(chan struct{})}
	var got bytes.Buffer
	g.copy = &got
	w := NewWriter(g, WriterConfig{Name: "--record", Wire: true, QueueBytes: 64 << 10})
	w.Emit(wireEvent(1, 100<<10)) // alone: taken
	w.Emit(wireEvent(2, 100<<10)) // behind it: dropped
	close(g.open)
	w.Close()
	if n := strings.Count(got.String(), `"kind":"wire"`); n != 1 || !strings.Contains(got.String(), "1 lines lost here") {
		t.Errorf("%d wire lines: %.300s", n, got.String())
	}
}

// TestEventBytesTracksTheLine: the size the queue counts is within a
// small factor of the line written, for the events that carry bytes.
func TestEventBytesTracksTheLine(t *testing.T) {
	call := progressEvent(1)
	call.Kind = model.KindToolCall
	call.Arguments = []byte(`{"query":"` + strings.Repeat("select 1; ", 2000) + `"}`)
	call.Meta = map[string]any{"progressToken": 7.0, "agentarea/task_id": "T1", "deep": map[string]any{"list": []any{"a", 1.0, true, nil}}}
	call.Headers = map[string]string{"Accept": "application/json, text/event-stream"}
	small := progressEvent(2)
	for name, e := range map[string]model.Event{"wire": wireEvent(1, 64<<10), "tool.call": call, "tool.progress": small} {
		est, line := eventBytes(&e), len(EncodeLine(&e))
		if r := float64(line) / float64(est); r < 0.5 || r > 1.5 {
			t.Errorf("%s: counted %d bytes for a line of %d", name, est, line)
		}
	}
}
