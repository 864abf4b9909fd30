package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// startMock runs `toolscope mock REC --output json` (the binary) and
// returns it, its address and its stdout (events, one a line).
func startMock(t *testing.T, rec string, args ...string) (cmd *exec.Cmd, addr string, events *bufio.Scanner) {
	t.Helper()
	bin, _ := stdioBins(t)
	cmd = exec.Command(bin, append([]string{"mock", rec, "--listen", "127.0.0.1:0", "--output", "json"}, args...)...)
	stderr, _ := cmd.StderrPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	serving := regexp.MustCompile(`serving .* on http://(\S+)`)
	for addr == "" && lines.Scan() {
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
		t.Log(lines.Text())
	}
	if addr == "" {
		t.Fatal("the mock said no address")
	}
	go io.Copy(io.Discard, stderr)
	events = bufio.NewScanner(stdout)
	events.Buffer(nil, 16<<20)
	return cmd, addr, events
}

// stopMock ends the mock and returns the events it wrote.
func stopMock(t *testing.T, cmd *exec.Cmd, events *bufio.Scanner) []model.Event {
	t.Helper()
	cmd.Process.Signal(os.Interrupt)
	var evs []model.Event
	for events.Scan() {
		e, err := output.DecodeLine(events.Bytes())
		if err != nil {
			t.Fatalf("mock output %q: %v", events.Text(), err)
		}
		evs = append(evs, e)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("mock: %v", err)
	}
	return evs
}

// TestMockServesWhatTheServerDid: a go-sdk client sees from the mock of a
// recorded session exactly what it saw from the real go-sdk server through
// the tap (tools, results, progress), and the mock's events show its calls
// as a tap's do.
func TestMockServesWhatTheServerDid(t *testing.T) {
	rec, direct := recordSession(t, sdkSaw)
	cmd, addr, events := startMock(t, rec)
	start := time.Now()
	mocked := sdkSaw(t, "http://"+addr)
	took := time.Since(start)
	if mocked != direct {
		t.Fatalf("against the mock:\n%s\nagainst the server:\n%s", mocked, direct)
	}
	if took < 80*time.Millisecond {
		t.Errorf("the session took %v against the mock: count's progress (30 ms apart) was not spaced", took)
	}
	// An unrecorded call gets an error naming the tool and what is recorded.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "three"}})
	if err == nil || !strings.Contains(err.Error(), `"echo"`) || !strings.Contains(err.Error(), `{"text":"one"}`) || !strings.Contains(err.Error(), `{"text":"two"}`) {
		t.Errorf("an unrecorded call: %v", err)
	}
	session.Close()

	calls, results := map[string]int{}, 0
	for _, e := range stopMock(t, cmd, events) {
		switch e.Kind {
		case model.KindToolCall:
			calls[e.Tool]++
			if e.Source != model.SourceTap || e.SourceName != "mock" {
				t.Errorf("a call from %s/%s", e.Source, e.SourceName)
			}
		case model.KindToolResult:
			results++
		}
	}
	if calls["count"] != 1 || calls["echo"] != 3 || calls["fail"] != 1 || results != 5 {
		t.Errorf("the mock's events: calls %v, %d results", calls, results)
	}
}

// TestMockStdio: `toolscope mock REC --stdio` is a stdio server a go-sdk
// client launches, answering as the recorded stdio server did.
func TestMockStdio(t *testing.T) {
	toolscope, server := stdioBins(t)
	direct := sdkSession(t, exec.Command(server))
	rec := filepath.Join(t.TempDir(), "stdio.jsonl")
	if through := sdkSession(t, exec.Command(toolscope, "tap", "--record", rec, "--", server)); through != direct {
		t.Fatalf("recording through the tap:\n%s\ndirect:\n%s", through, direct)
	}
	events := filepath.Join(t.TempDir(), "mock-events.jsonl")
	mocked := sdkSession(t, exec.Command(toolscope, "mock", rec, "--stdio", "--record", events))
	if mocked != direct {
		t.Fatalf("against the stdio mock:\n%s\ndirect:\n%s", mocked, direct)
	}
	calls := 0
	for _, e := range readRecording(t, events) {
		if e.Kind == model.KindToolCall {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("the stdio mock's recording holds %d calls, want 2", calls)
	}
}

// TestMockTypeScriptClient: the TypeScript SDK's client (2025-11-25:
// initialize, a session) sees from the mock what it saw from the go-sdk
// server through the tap.
func TestMockTypeScriptClient(t *testing.T) {
	node := modeltest.NeedNode(t)
	tsSaw := func(t *testing.T, endpoint string) string {
		t.Helper()
		out, err := exec.Command(node, modeltest.Testdata("node", "mock-client.mjs"), endpoint).CombinedOutput()
		if err != nil {
			t.Fatalf("the TypeScript client against %s: %v\n%s", endpoint, err, out)
		}
		return string(out)
	}
	rec, direct := recordSession(t, tsSaw)
	var first struct {
		Protocol string `json:"protocol"`
	}
	json.Unmarshal([]byte(strings.SplitN(direct, "\n", 2)[0]), &first)
	if first.Protocol == "" {
		t.Fatalf("the TypeScript client said no protocol version:\n%s", direct)
	}
	t.Logf("the TypeScript client spoke %s; it saw:\n%s", first.Protocol, direct)
	cmd, addr, events := startMock(t, rec)
	mocked := tsSaw(t, "http://"+addr)
	stopMock(t, cmd, events)
	if mocked != direct {
		t.Fatalf("against the mock:\n%s\nagainst the server:\n%s", mocked, direct)
	}
}
