package mock

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// httpWire is a recorded HTTP exchange: the request body, and the response
// as SSE events at the given offsets (ms).
func httpWire(at time.Duration, req string, events map[float64]string) model.Event {
	resp := &model.WireResponse{Status: 200, Headers: [][2]string{{"Content-Type", "text/event-stream"}}}
	var offs []float64
	for off := range events {
		offs = append(offs, off)
	}
	for i := range offs { // in time order
		for j := i + 1; j < len(offs); j++ {
			if offs[j] < offs[i] {
				offs[i], offs[j] = offs[j], offs[i]
			}
		}
	}
	for _, off := range offs {
		resp.Events = append(resp.Events, model.WireEvent{AtMS: off, Data: events[off]})
	}
	return model.Event{Time: t0.Add(at), Kind: model.KindWire, Wire: &model.Wire{Transport: model.TransportHTTP,
		Request: &model.WireRequest{Method: "POST", URL: "/mcp", Body: &model.WireBody{Text: req}}, Response: resp}}
}

func call(id int, tool, args, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s,"_meta":{"progressToken":"rec-%d"}}}`, id, tool, args, extra, id)
}

func result(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
}

func progress(id int, n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"rec-%d","progress":%d}}`, id, n)
}

// session runs requests (one a line) through ServeStdio and returns the
// lines it wrote, each with when it came.
func session(t *testing.T, sv *Server, requests ...string) (lines []string, at []time.Duration) {
	t.Helper()
	in := strings.NewReader(strings.Join(requests, "\n") + "\n")
	r, w := io.Pipe()
	start := time.Now()
	go func() {
		sv.ServeStdio(context.Background(), in, w)
		w.Close()
	}()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		at = append(at, time.Since(start))
	}
	return lines, at
}

func TestAnswersInOrderArgumentsAndRounds(t *testing.T) {
	script, err := Load([]model.Event{
		httpWire(0, call(1, "echo", `{"b":2,"a":[1,{"x":"y"}]}`, ""), map[float64]string{5: result(1, "first")}),
		httpWire(time.Second, call(2, "echo", `{"a":[1,{"x":"y"}],"b":2}`, ""), map[float64]string{5: result(2, "second")}),
		httpWire(2*time.Second, call(3, "login", `{"user":"u","password":"[redacted]"}`, ""), map[float64]string{5: result(3, "welcome")}),
		// a multi-round call: round 1 asks for input, round 2 carries the state back
		httpWire(3*time.Second, call(4, "book", `{"day":"mon"}`, ""), map[float64]string{5: `{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","requestState":"st-1"}}`}),
		httpWire(4*time.Second, call(5, "book", `{"day":"mon"}`, `,"requestState":"st-1","inputResponses":{"q":"yes"}`), map[float64]string{5: result(5, "booked")}),
	})
	if err != nil {
		t.Fatal(err)
	}
	sv := NewServer(script, 0)
	got, _ := session(t, sv,
		call(11, "echo", `{"a":[1,{"x":"y"}],"b":2}`, ""),
		call(12, "echo", `{"b":2,"a":[1,{"x":"y"}]}`, ""),
		call(13, "echo", `{"b":2,"a":[1,{"x":"y"}]}`, ""),
		call(14, "login", `{"user":"u","password":"hunter2"}`, ""),
		call(15, "book", `{"day":"mon"}`, ""),
		call(16, "book", `{"day":"mon"}`, `,"requestState":"st-1","inputResponses":{"q":"yes"}`),
		call(17, "echo", `{"a":[1],"b":2}`, ""),
		`{"jsonrpc":"2.0","id":18,"method":"prompts/list"}`,
	)
	byID := map[int]string{}
	for _, line := range got {
		var m struct {
			ID int `json:"id"`
		}
		json.Unmarshal([]byte(line), &m)
		byID[m.ID] = line
	}
	for id, want := range map[int]string{11: `"first"`, 12: `"second"`, 13: `"second"`, 14: `"welcome"`, 15: `"input_required"`, 16: `"booked"`,
		17: `no recorded answer to tool \"echo\" with arguments {\"a\":[1],\"b\":2}; recorded for \"echo\": {\"a\":[1,{\"x\":\"y\"}],\"b\":2}`,
		18: `the recording holds no answer to prompts/list`} {
		if id == 17 && !strings.Contains(byID[id], `"data":{"arguments":{"a":[1],"b":2},"recorded_arguments":[{"a":[1,{"x":"y"}],"b":2}],"tool":"echo"}`) {
			t.Errorf("the unrecorded call's error data: %s", byID[id])
		}
		if !strings.Contains(byID[id], want) {
			t.Errorf("answer %d: %s, want %s", id, byID[id], want)
		}
	}
}

// TestProgressSpacingScaled: progress comes at its recorded offsets, scaled
// by the speed, with the live request's progress token.
func TestProgressSpacingScaled(t *testing.T) {
	script, err := Load([]model.Event{httpWire(0, call(1, "count", `{}`, ""),
		map[float64]string{100: progress(1, 1), 200: progress(1, 2), 300: result(1, "done")})})
	if err != nil {
		t.Fatal(err)
	}
	for _, speed := range []float64{1, 2} {
		got, at := session(t, NewServer(script, speed), call(7, "count", `{}`, ""))
		if len(got) != 3 || !strings.Contains(got[0], `"progressToken":"rec-7"`) || !strings.Contains(got[2], `"id":7`) {
			t.Fatalf("speed %v: %q", speed, got)
		}
		want := time.Duration(float64(300*time.Millisecond) / speed)
		if at[2] < want-10*time.Millisecond || at[1] < at[0] {
			t.Errorf("speed %v: answers at %v, the result due at %v", speed, at, want)
		}
		t.Logf("speed %v: progress and result at %v (due at %v; a busy machine adds)", speed, at, want)
	}
}

func TestRedactedMatchesAnything(t *testing.T) {
	for _, c := range []struct {
		recorded, live any
		want           bool
	}{
		{"[redacted]", "hunter2", true},
		{"Bearer [redacted]", "Bearer abc", true},
		{"Bearer [redacted]", "Basic abc", false},
		{"key [redacted] and [redacted].", "key a and b.", true},
		{"key [redacted] and [redacted].", "key a or b.", false},
		{map[string]any{"p": "[redacted]"}, map[string]any{"p": 7.0}, true},
		{map[string]any{"p": "x [redacted]"}, map[string]any{"p": 7.0}, false},
	} {
		if got := matches(c.recorded, c.live); got != c.want {
			t.Errorf("matches(%v, %v) = %v", c.recorded, c.live, got)
		}
	}
}

func TestLoadSaysWhenNothingToServe(t *testing.T) {
	if _, err := Load([]model.Event{{Kind: model.KindToolCall}}); err == nil || !strings.Contains(err.Error(), "no exchange") {
		t.Errorf("a recording without wire lines: %v", err)
	}
}
