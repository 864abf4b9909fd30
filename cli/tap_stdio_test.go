package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// TestMain removes the binaries built for the run.
func TestMain(m *testing.M) {
	code := m.Run()
	modeltest.RemoveBinaries()
	os.Exit(code)
}

// stdioBins are the toolscope binary and the go-sdk stdio server of
// stream/tap/testdata.
func stdioBins(t *testing.T) (toolscope, server string) {
	return modeltest.Binary(t, "toolscope"), modeltest.Binary(t, stdioServerPkg)
}

const stdioServerPkg = "toolscope/stream/tap/testdata/stdioserver"

// sdkSession runs a go-sdk client over a CommandTransport: it lists the
// tools, calls count (with progress) and echo, and returns what it got.
func sdkSession(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var progress []string
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "v1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, fmt.Sprintf("%v/%v %s", req.Params.Progress, req.Params.Total, req.Params.Message))
			mu.Unlock()
		},
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	var got strings.Builder
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		got.WriteString(tool.Name + ";")
	}
	count := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"steps": 4}}
	count.SetProgressToken("p-count")
	for _, params := range []*mcp.CallToolParams{count, {Name: "echo", Arguments: map[string]any{"text": "héllo", "repeat": 3}}} {
		res, err := session.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("%s: %v", params.Name, err)
		}
		fmt.Fprintf(&got, "%s -> %v %s;", params.Name, res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(progress)
		mu.Unlock()
		if n >= 4 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return got.String() + strings.Join(progress, ",")
}

// readRecording decodes a --record file.
func readRecording(t *testing.T, path string) []model.Event {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		ev, err := output.DecodeLine(line)
		if err != nil {
			t.Fatalf("recording line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestStdioTapCommandTransport: a go-sdk client launching `toolscope tap
// -- SERVER` gets exactly what it gets launching SERVER itself, and the
// recording holds the calls, their progress and results.
func TestStdioTapCommandTransport(t *testing.T) {
	toolscope, server := stdioBins(t)
	direct := sdkSession(t, exec.Command(server))
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	through := sdkSession(t, exec.Command(toolscope, "tap", "--record", rec, "--", server))
	if through != direct {
		t.Fatalf("through the tap:\n%s\ndirect:\n%s", through, direct)
	}
	kinds := map[model.Kind]int{}
	var ended string
	lines := map[string]int{} // wire lines by who sent them
	for _, e := range readRecording(t, rec) {
		kinds[e.Kind]++
		if e.Kind == model.KindWire {
			lines[e.Wire.From]++
			if e.Wire.Transport != model.TransportStdio || e.Wire.Message == nil || !json.Valid([]byte(e.Wire.Message.Text)) {
				t.Errorf("wire line %+v", e.Wire)
			}
		}
		if e.Kind == model.KindSourceStatus && e.State == model.StateEnded {
			ended = e.Detail
		}
		if e.Kind == model.KindToolResult && (e.Error != "" || e.IsError) {
			t.Errorf("failed result %+v", e)
		}
	}
	if kinds[model.KindToolCall] != 2 || kinds[model.KindToolProgress] != 4 || kinds[model.KindToolResult] != 2 || kinds[model.KindWarning] != 0 {
		t.Errorf("recorded %v", kinds)
	}
	// server/discover (the go-sdk client speaks 2026-07-28), tools/list,
	// two calls; their answers and 4 progress notifications
	if lines["client"] != 4 || lines["server"] != 8 {
		t.Errorf("wire lines recorded: %v", lines)
	}
	if ended != "stdioserver exited with code 7" {
		t.Errorf("ended %q", ended)
	}
}

// TestStdioTapExitCodeAndDefaultRecord: the child's exit code is
// toolscope's (3, crashing mid-call); without --record the recording goes
// to the state directory, said once on stderr, with the call failed.
func TestStdioTapExitCodeAndDefaultRecord(t *testing.T) {
	toolscope, server := stdioBins(t)
	state := t.TempDir()
	cmd := exec.Command(toolscope, "tap", "--", server)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize answer %q, %v", line, err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{"code":3}}}`+"\n")
	io.Copy(io.Discard, out)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("toolscope exited %v, want code 3; stderr:\n%s", err, stderr.String())
	}
	matches, _ := filepath.Glob(filepath.Join(state, "toolscope", "stdio-stdioserver-*.jsonl"))
	if len(matches) != 1 || strings.Count(stderr.String(), "recording to "+matches[0]) != 1 {
		t.Fatalf("recordings %v; stderr:\n%s", matches, stderr.String())
	}
	var result *model.Event
	for _, e := range readRecording(t, matches[0]) {
		if e.Kind == model.KindToolResult {
			result = &e
		}
	}
	if result == nil || result.Tool != "crash" || !strings.Contains(result.Error, "the server exited (code 3) before answering") {
		t.Fatalf("result %+v", result)
	}
}

// TestStdioTapRefusesASharedStateDir: the default recording is made only
// in a directory of the user's own, closed to others: a loose one is
// refused before the server starts, saying why and what to do.
func TestStdioTapRefusesASharedStateDir(t *testing.T) {
	toolscope, server := stdioBins(t)
	state := t.TempDir()
	dir := filepath.Join(state, "toolscope")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(toolscope, "tap", "--", server)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 ||
		!strings.Contains(string(out), dir+" is not a private directory: its mode is 0777") || !strings.Contains(string(out), "chmod 700 "+dir) {
		t.Fatalf("exit %v, output %q", err, out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("written into a shared directory: %v", entries)
	}
}

// TestStdioTapRefusesOutput: stdout belongs to the protocol.
func TestStdioTapRefusesOutput(t *testing.T) {
	code, stderr := runCapturingStderr(t, []string{"tap", "--output", "json", "--", "my-server"})
	if code != 2 || !strings.Contains(stderr, "stdout belongs to the MCP protocol") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestStdioTapForwardsSignals: SIGINT to toolscope reaches the child, which
// dies of it; toolscope exits as a shell reports that (130).
func TestStdioTapForwardsSignals(t *testing.T) {
	toolscope, server := stdioBins(t)
	cmd := exec.Command(toolscope, "tap", "--record", filepath.Join(t.TempDir(), "s.jsonl"), "--", server)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize answer %q, %v", line, err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("toolscope exited %v, want 130 (the child's SIGINT)", err)
	}
}

// TestStdioTapExportsSpans: a stdio tap's calls go to --otlp as they go to
// the recording (its stdout belongs to the protocol).
func TestStdioTapExportsSpans(t *testing.T) {
	toolscope, server := stdioBins(t)
	collector := newSpanNames(t)
	cmd := exec.Command(toolscope, "tap", "--record", filepath.Join(t.TempDir(), "s.jsonl"), "--otlp", collector.URL, "--", server)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{"code":3}}}`+"\n")
	io.Copy(io.Discard, stdout)
	cmd.Wait()
	names := collector.all()
	if len(names) != 1 || names[0] != "execute_tool crash" {
		t.Fatalf("spans %q, want one execute_tool crash; stderr:\n%s", names, stderr.String())
	}
}
