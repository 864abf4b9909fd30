package otlp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/stream/tap"
)

// TestPlainMCPSpanHasNoRelay: a tap's call without AgentArea context has
// nothing that relays its progress: no relayed_count on its span and no
// relayed on its progress events; the sent count stays.
func TestPlainMCPSpanHasNoRelay(t *testing.T) {
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	tap := func(kind model.Kind, ms int) model.Event {
		return model.Event{Time: at(ms), Source: model.SourceTap, SourceName: "tap:plain", Kind: kind,
			Tool: "count", Exchange: "4", RequestID: "2"}
	}
	call := tap(model.KindToolCall, 0)
	call.Context = &model.Context{Verdict: model.VerdictAbsent}
	e.Emit(call)
	for i := 1; i <= 3; i++ {
		p := tap(model.KindToolProgress, i*10)
		p.Progress, p.Total = float64(i), total(3)
		e.Emit(p)
	}
	e.Emit(tap(model.KindToolResult, 40))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	spans := c.all()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	s := spans[0]
	if _, ok := attr(s.Attributes, "toolscope.progress.relayed_count"); ok {
		t.Error("relayed_count on a plain MCP call")
	}
	if intAttr(t, s.Attributes, "toolscope.progress.sent_count") != 3 {
		t.Errorf("sent_count %d", intAttr(t, s.Attributes, "toolscope.progress.sent_count"))
	}
	progress := 0
	for _, ev := range s.Events {
		if ev.Name != "progress" {
			continue
		}
		progress++
		if _, ok := attr(ev.Attributes, "toolscope.progress.relayed"); ok {
			t.Errorf("progress event with relayed: %v", ev.Attributes)
		}
	}
	if progress != 3 {
		t.Errorf("%d progress events", progress)
	}
}

// TestPlainTapCallHasNoVerdict: through a real tap, a plain MCP call's span
// has no agentarea.context.verdict (no token to miss); once the tap has
// carried AgentArea context, a call without a token has verdict absent.
func TestPlainTapCallHasNoVerdict(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"content":[{"type":"text","text":"ok"}]}}`))
	}))
	t.Cleanup(upstream.Close)
	c := newCollector(t)
	e, _ := newTestExporter(t, c.URL, nil)
	// Each call is sent once the tap has observed the one before: whether a
	// call without context misses one depends on the calls the tap judged
	// before it (docs/json-lines.md), and the tap observes on side workers.
	results := make(chan struct{}, 8)
	sink := model.SinkFunc(func(ev model.Event) {
		e.Emit(ev)
		if ev.Kind == model.KindToolResult {
			results <- struct{}{}
		}
	})
	tp, err := tap.New(tap.Config{Name: "plain", Listen: "127.0.0.1:0", Upstream: upstream.URL}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	for i, meta := range []map[string]any{nil, {"agentarea/task_id": "t-1"}, nil} {
		body := modeltest.CallBody(t, i+1, fmt.Sprintf("call%d", i+1), map[string]any{}, meta)
		res, err := http.Post("http://"+tp.Addr(), "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		select {
		case <-results:
		case <-time.After(5 * time.Second):
			t.Fatalf("call%d: no tool.result observed", i+1)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tp.Shutdown(ctx)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, s := range c.all() {
		v, ok := attr(s.Attributes, "agentarea.context.verdict")
		verdicts[strAttr(t, s.Attributes, "gen_ai.tool.name")] = fmt.Sprint(ok, " ", v.GetStringValue())
	}
	want := map[string]string{"call1": "false ", "call2": "true absent", "call3": "true absent"}
	if fmt.Sprint(verdicts) != fmt.Sprint(want) {
		t.Errorf("verdicts %v, want %v", verdicts, want)
	}
}
