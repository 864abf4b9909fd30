package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model/modeltest"
	"toolscope/output/mcpserver"
)

var mcpURLLine = regexp.MustCompile(`serving MCP at (http://\S+/mcp)`)

// mcpURL waits for the child to say where it serves MCP.
func mcpURL(t *testing.T, stderr *modeltest.LockedBuffer) string {
	t.Helper()
	var url string
	modeltest.WaitFor(t, 20*time.Second, "the MCP URL on stderr", func() bool {
		if m := mcpURLLine.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		return url != ""
	})
	return url
}

// listCalls calls list_calls on url and returns the ids.
func listCalls(t *testing.T, url, filter string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_calls", Arguments: map[string]any{"filter": filter, "limit": 500}})
	if err != nil || res.IsError {
		t.Fatalf("list_calls: %v %v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Calls []struct {
			ID string `json:"id"`
		} `json:"calls"`
	}
	json.Unmarshal(b, &out)
	var ids []string
	for _, c := range out.Calls {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestReplayServesMCPUntilInterrupted: a replay that has played its file
// keeps serving what it played until SIGINT, then exits 0.
func TestReplayServesMCPUntilInterrupted(t *testing.T) {
	toolscope, _ := stdioBins(t)
	cmd := exec.Command(toolscope, "replay", modeltest.SessionFile(), "--speed", "0", "--output", "json", "--mcp-listen", "127.0.0.1:0")
	stderr := &modeltest.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	url := mcpURL(t, stderr)
	modeltest.WaitFor(t, 20*time.Second, "the replay to end", func() bool { return strings.Contains(stderr.String(), "still serving MCP") })
	select {
	case err := <-done:
		t.Fatalf("the replay exited once played (%v), while serving MCP:\n%s", err, stderr.String())
	case <-time.After(300 * time.Millisecond):
	}
	ids := listCalls(t, url, "tool:read_workbook")
	if len(ids) == 0 {
		t.Fatalf("the replayed session's read_workbook calls are not served:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGINT: %v\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit 10 s after SIGINT")
	}
}

// TestStdioTapServesMCP: the stdio tap serves the calls its child answers
// while it runs.
func TestStdioTapServesMCP(t *testing.T) {
	toolscope, server := stdioBins(t)
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	cmd := exec.Command(toolscope, "tap", "--record", rec, "--mcp-listen", "127.0.0.1:0", "--", server)
	stderr := &modeltest.LockedBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi", "repeat": 1}}); err != nil {
		t.Fatal(err)
	}
	url := mcpURL(t, stderr)
	var ids []string
	modeltest.WaitFor(t, 10*time.Second, "the echo call served", func() bool {
		ids = listCalls(t, url, "tool:echo")
		return len(ids) == 1
	})
}

// TestMCPFlagsChecked: an address beyond loopback, or --mcp-allow-remote
// without a token or an address, is a usage error before anything starts.
func TestMCPFlagsChecked(t *testing.T) {
	toolscope, _ := stdioBins(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", modeltest.SessionFile(), "--output", "json", "--mcp-listen", "0.0.0.0:7072"}, "not loopback"},
		{[]string{"replay", modeltest.SessionFile(), "--output", "json", "--mcp-listen", "0.0.0.0:7072", "--mcp-allow-remote"}, "TOOLSCOPE_MCP_TOKEN"},
		{[]string{"replay", modeltest.SessionFile(), "--output", "json", "--mcp-allow-remote"}, "needs --mcp-listen"},
		{[]string{"tap", "--mcp-listen", "10.1.2.3:7072", "--", "true"}, "not loopback"},
	} {
		cmd := exec.Command(toolscope, c.args...)
		cmd.Env = append(os.Environ(), "TOOLSCOPE_MCP_TOKEN=")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: %v, stderr %q; want exit 2 saying %q", c.args, err, stderr.String(), c.want)
		}
	}
}

// mcpServed is everything the pipeline's MCP server answers, as JSON text:
// each tool (list_calls with and without a filter, list_warnings, sources)
// and, for every call, get_call, explain_call and its resource. The secrets
// table test checks it.
func mcpServed(t *testing.T, p *pipeline) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.mcp.URL()}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", p.mcp.URL(), err)
	}
	defer cs.Close()
	var served strings.Builder
	call := func(tool string, args map[string]any) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		b, _ := json.Marshal(res)
		served.Write(b)
		served.WriteByte('\n')
	}
	call("list_calls", nil)
	call("list_calls", map[string]any{"filter": "status:ok,error,cancelled,running,late"})
	call("list_warnings", nil)
	call("sources", nil)
	for _, c := range p.store.Snapshot().Calls {
		call("get_call", map[string]any{"id": c.ID})
		call("explain_call", map[string]any{"id": c.ID})
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.CallURI(c.ID)})
		if err != nil {
			t.Fatalf("read %s: %v", c.ID, err)
		}
		served.WriteString(rr.Contents[0].Text + "\n")
	}
	return served.String()
}
