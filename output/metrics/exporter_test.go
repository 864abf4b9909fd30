package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	tsmodel "toolscope/model"
	"toolscope/output"
	"toolscope/output/metrics"
	"toolscope/stream/tap"
)

// scrape GETs /metrics as Prometheus does and parses the text format.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("scrape: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the endpoint's text does not parse: %v", err)
	}
	return families
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// find is the series of family name whose labels include want.
func find(families map[string]*dto.MetricFamily, name string, want map[string]string) []*dto.Metric {
	var found []*dto.Metric
	for _, m := range families[name].GetMetric() {
		l := labels(m)
		ok := true
		for k, v := range want {
			ok = ok && l[k] == v
		}
		if ok {
			found = append(found, m)
		}
	}
	return found
}

type echoIn struct {
	Text string `json:"text"`
}

// sdkServer is a real MCP server (the official Go SDK): echo succeeds,
// fail returns isError.
func sdkServer(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "metrics-upstream", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		time.Sleep(15 * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("it failed")
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv
}

// TestTapCallsScraped: calls of a real go-sdk client through a real tap to
// a real go-sdk server show at /metrics as the MCP conventions name them.
func TestTapCallsScraped(t *testing.T) {
	upstream := sdkServer(t)
	x, err := metrics.New(metrics.Config{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	hub := output.NewHub(tsmodel.NewStore(tsmodel.DefaultOptions()), x)
	tp, err := tap.New(tap.Config{Name: "tap", Listen: "127.0.0.1:0", Upstream: upstream.URL}, hub)
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + tp.Addr(), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprint(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{"text": "x"}}); err != nil || !res.IsError {
		t.Fatalf("fail: %v %v", res, err)
	}
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "missing", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a call of an unknown tool succeeded")
	}
	// None of those carried AgentArea context: no verdict. Then one with
	// agentarea/* keys and no token, and one after it without anything:
	// the tap carries AgentArea context now, so both miss a token.
	for _, meta := range []mcp.Meta{{"agentarea/task_id": "t-1", "agentarea/tool_call_id": "c-1"}, nil} {
		if _, err := session.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: "echo", Arguments: map[string]any{"text": "aa"}}); err != nil {
			t.Fatal(err)
		}
	}
	session.Close()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	tp.Shutdown(sctx) // every event emitted

	f := scrape(t, x.Addr())
	const hist = "mcp_client_operation_duration_seconds"
	if f[hist].GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("%s: %v, want a histogram (families: %v)", hist, f[hist].GetType(), keys(f))
	}
	echo := find(f, hist, map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "echo", "gen_ai_operation_name": "execute_tool"})
	if len(echo) != 1 || echo[0].GetHistogram().GetSampleCount() != 5 {
		t.Fatalf("echo series: %v", echo)
	}
	if _, has := labels(echo[0])["error_type"]; has {
		t.Errorf("a success carries error.type: %v", labels(echo[0]))
	}
	if sum := echo[0].GetHistogram().GetSampleSum(); sum < 0.075 || sum > 5 {
		t.Errorf("five echo calls of 15 ms took %v s in all", sum)
	}
	if s := find(f, hist, map[string]string{"gen_ai_tool_name": "fail", "error_type": "tool_error"}); len(s) != 1 || s[0].GetHistogram().GetSampleCount() != 1 {
		t.Errorf("an isError result: %v", s)
	}
	if s := find(f, hist, map[string]string{"gen_ai_tool_name": "missing", "error_type": "-32602", "rpc_response_status_code": "-32602"}); len(s) != 1 {
		t.Errorf("a JSON-RPC error: %v", find(f, hist, map[string]string{"gen_ai_tool_name": "missing"}))
	}
	for _, m := range []string{"initialize", "tools/list"} {
		if s := find(f, hist, map[string]string{"mcp_method_name": m}); len(s) != 1 || s[0].GetHistogram().GetSampleCount() != 1 {
			t.Errorf("%s: %v", m, s)
		}
	}
	calls := find(f, "toolscope_tool_calls_total", map[string]string{"gen_ai_tool_name": "echo", "toolscope_source": "tap"})
	if len(calls) != 1 || calls[0].GetCounter().GetValue() != 5 {
		t.Errorf("calls counter: %v", calls)
	}
	verdicts := find(f, "toolscope_context_verdicts_total", nil)
	if len(verdicts) != 1 || labels(verdicts[0])["toolscope_context_verdict"] != "absent" || verdicts[0].GetCounter().GetValue() != 2 {
		t.Errorf("verdicts: %v (want absent twice: plain MCP calls are not counted)", verdicts)
	}
}

func keys(f map[string]*dto.MetricFamily) []string {
	var k []string
	for n := range f {
		k = append(k, n)
	}
	return k
}

// TestLabelsBounded: tool names past the cap share _OTHER, warning codes
// toolscope does not know are _OTHER, and the SDK's series limit folds
// the rest into one overflow series.
func TestLabelsBounded(t *testing.T) {
	x, err := metrics.New(metrics.Config{Listen: "127.0.0.1:0", MaxToolNames: 5, SeriesLimit: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	now := time.Now().UTC()
	for i := range 20 {
		x.Emit(tsmodel.Event{Time: now, Source: tsmodel.SourceTap, Kind: tsmodel.KindToolCall, Tool: fmt.Sprintf("tool-%02d", i)})
	}
	x.Emit(tsmodel.Event{Time: now, Source: tsmodel.SourceTap, Kind: tsmodel.KindWarning, Code: "made_up_by_a_peer"})
	x.Emit(tsmodel.Event{Time: now, Source: tsmodel.SourceTap, Kind: tsmodel.KindWarning, Code: string(tsmodel.WarnCallTimeout)})
	for i := range 200 { // more error types than the series limit
		x.Emit(tsmodel.Event{Time: now, Source: tsmodel.SourceTap, Kind: tsmodel.KindToolResult, Tool: "tool-00", RPCCode: -32000 - i, DurationMS: 1})
	}
	f := scrape(t, x.Addr())
	calls := f["toolscope_tool_calls_total"].GetMetric()
	if len(calls) != 6 {
		t.Errorf("%d call series, want 5 tools and _OTHER", len(calls))
	}
	if o := find(f, "toolscope_tool_calls_total", map[string]string{"gen_ai_tool_name": "_OTHER"}); len(o) != 1 || o[0].GetCounter().GetValue() != 15 {
		t.Errorf("_OTHER: %v", o)
	}
	if o := find(f, "toolscope_warnings_total", map[string]string{"toolscope_warning_code": "_OTHER"}); len(o) != 1 {
		t.Errorf("an unknown warning code: %v", f["toolscope_warnings_total"])
	}
	if o := find(f, "toolscope_warnings_total", map[string]string{"toolscope_warning_code": "call_timeout"}); len(o) != 1 {
		t.Errorf("call_timeout: %v", f["toolscope_warnings_total"])
	}
	hist := f["mcp_client_operation_duration_seconds"].GetMetric()
	if len(hist) > 50 {
		t.Errorf("%d histogram series past a limit of 50", len(hist))
	}
	if o := find(f, "mcp_client_operation_duration_seconds", map[string]string{"otel_metric_overflow": "true"}); len(o) != 1 {
		t.Errorf("no overflow series: %d series", len(hist))
	}
}

func TestListenAddr(t *testing.T) {
	for _, c := range []struct {
		in, addr string
		loopback bool
	}{
		{":9999", "127.0.0.1:9999", true},
		{"9999", "127.0.0.1:9999", true},
		{"", "127.0.0.1:9464", true},
		{"localhost:1", "localhost:1", true},
		{"[::1]:0", "[::1]:0", true},
		{"0.0.0.0:9464", "0.0.0.0:9464", false},
		{"10.1.2.3", "10.1.2.3:9464", false},
	} {
		addr, lo := metrics.ListenAddr(c.in)
		if addr != c.addr || lo != c.loopback {
			t.Errorf("ListenAddr(%q) = %q %v, want %q %v", c.in, addr, lo, c.addr, c.loopback)
		}
	}
}

// TestMultiRoundCallCountsOnce: the rounds of a multi-round call are one
// call, each round's request timed as the tools/call it is on the wire,
// and the answers that asked for input counted.
func TestMultiRoundCallCountsOnce(t *testing.T) {
	x, err := metrics.New(metrics.Config{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	now := time.Now().UTC()
	ev := func(kind tsmodel.Kind, round int32, resultType string) tsmodel.Event {
		return tsmodel.Event{Time: now, Source: tsmodel.SourceTap, Kind: kind, Tool: "deploy", Exchange: "2", Round: round, ResultType: resultType, DurationMS: 5}
	}
	for _, e := range []tsmodel.Event{ev(tsmodel.KindToolCall, 0, ""), ev(tsmodel.KindToolResult, 1, tsmodel.ResultInputRequired),
		ev(tsmodel.KindToolCall, 2, ""), ev(tsmodel.KindToolResult, 2, "complete")} {
		x.Emit(e)
	}
	f := scrape(t, x.Addr())
	if c := find(f, "toolscope_tool_calls_total", map[string]string{"gen_ai_tool_name": "deploy"}); len(c) != 1 || c[0].GetCounter().GetValue() != 1 {
		t.Errorf("calls: %v", c)
	}
	if c := find(f, "toolscope_tool_input_requests_total", map[string]string{"gen_ai_tool_name": "deploy"}); len(c) != 1 || c[0].GetCounter().GetValue() != 1 {
		t.Errorf("input requests: %v", c)
	}
	if h := find(f, "mcp_client_operation_duration_seconds", map[string]string{"gen_ai_tool_name": "deploy"}); len(h) != 1 || h[0].GetHistogram().GetSampleCount() != 2 {
		t.Errorf("durations: %v", h)
	}
}
