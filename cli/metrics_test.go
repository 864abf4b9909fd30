package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// startToolscope runs the built binary with args and returns it with the
// addresses its stderr names (metrics, and a tap's listener when there is one).
func startToolscope(t *testing.T, args ...string) (cmd *exec.Cmd, metricsAddr, tapAddr string) {
	t.Helper()
	bin, _ := stdioBins(t)
	cmd = exec.Command(bin, args...)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	wantTap := args[0] == "tap"
	deadline := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	metricsAt := regexp.MustCompile(`metrics at http://(\S+)/metrics`)
	tapAt := regexp.MustCompile(`listening on http://(\S+)`)
	for (metricsAddr == "" || wantTap && tapAddr == "") && lines.Scan() {
		if m := metricsAt.FindStringSubmatch(lines.Text()); m != nil {
			metricsAddr = m[1]
		}
		if m := tapAt.FindStringSubmatch(lines.Text()); m != nil {
			tapAddr = m[1]
		}
	}
	if metricsAddr == "" {
		t.Fatalf("toolscope %v said no metrics address", args)
	}
	go io.Copy(io.Discard, stderr)
	return cmd, metricsAddr, tapAddr
}

// scrapeText GETs /metrics and parses it as Prometheus does.
func scrapeText(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	// name{labels} → value (counters) or sample count (histograms)
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			key := name + "{" + strings.Join(ls, ",") + "}"
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Histogram != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

func sumMatching(samples map[string]float64, substrings ...string) float64 {
	var sum float64
	for k, v := range samples {
		all := true
		for _, s := range substrings {
			all = all && strings.Contains(k, s)
		}
		if all {
			sum += v
		}
	}
	return sum
}

// TestTapMetricsEndpoint: `toolscope tap --metrics-listen` (the binary, out
// of process) serves the calls a go-sdk client made through it (plain MCP:
// no context verdicts).
func TestTapMetricsEndpoint(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "m", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ping_tool"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer upstream.Close()
	cmd, metricsAddr, tapAddr := startToolscope(t, "tap", "--upstream", upstream.URL, "--listen", "127.0.0.1:0",
		"--output", "json", "--metrics-listen", "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + tapAddr, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "ping_tool"}); err != nil {
			t.Fatal(err)
		}
	}
	session.Close()
	var got map[string]float64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = scrapeText(t, metricsAddr)
		if sumMatching(got, "mcp_client_operation_duration_seconds{", "gen_ai_tool_name=ping_tool", "mcp_method_name=tools/call") == 2 {
			break
		}
	}
	if n := sumMatching(got, "mcp_client_operation_duration_seconds{", "gen_ai_tool_name=ping_tool"); n != 2 {
		t.Fatalf("ping_tool calls timed: %v, want 2; scraped %v", n, got)
	}
	if n := sumMatching(got, "toolscope_context_verdicts_total{"); n != 0 {
		t.Errorf("verdicts: %v, want none: plain MCP has no token to miss", n)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("tap exited %v after SIGINT", err)
	}
}

// TestDemoMetricsEndpoint: the demo's calls, warnings and verdicts show at
// /metrics while it runs.
func TestDemoMetricsEndpoint(t *testing.T) {
	cmd, metricsAddr, _ := startToolscope(t, "demo", "--speed", "4", "--output", "json", "--metrics-listen", "127.0.0.1:0")
	var got map[string]float64
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		got = scrapeText(t, metricsAddr)
		if sumMatching(got, "verdict=rejected") > 0 && sumMatching(got, "toolscope_warnings_total{") > 0 &&
			sumMatching(got, "mcp_client_operation_duration_seconds{", "toolscope_source=feed") > 0 {
			break
		}
	}
	for _, want := range [][]string{{"verdict=rejected"}, {"toolscope_warnings_total{"}, {"toolscope_tool_progress_total{"},
		{"mcp_client_operation_duration_seconds{", "toolscope_source=feed"}, {"mcp_client_operation_duration_seconds{", "toolscope_source=tap"}} {
		if sumMatching(got, want...) == 0 {
			t.Errorf("no sample with %v in %v", want, got)
		}
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
}
