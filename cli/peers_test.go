package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// Real clients and servers with and without toolscope between them: the
// go-sdk's and the TypeScript SDK's clients, against go-sdk servers and
// the TypeScript SDK's server-everything, over HTTP (the tap) and stdio
// (the stdio tap; the go-sdk client and server there: tap_stdio_test.go). Each client must get the same through toolscope as
// without it, and toolscope must show the calls as the plain MCP they are:
// no relay, no token verdicts on the screen.

// peerCall is one tools/call a peer client makes; Progress asks for
// progress notifications (a token), Want is how many the client waits for.
type peerCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Progress  bool           `json:"progress,omitempty"`
	Want      int            `json:"-"`
}

// everythingCalls exercise server-everything's tools that answer the same
// every time: text (past AgentArea's 8000-character offload, which plain
// MCP does not have), a sum, progress, an image, structured content.
var everythingCalls = []peerCall{
	{Name: "echo", Arguments: map[string]any{"message": strings.Repeat("héllo ", 1500)}},
	{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}},
	{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.5, "steps": 5}, Progress: true, Want: 5},
	{Name: "get-tiny-image", Arguments: map[string]any{}},
	{Name: "get-structured-content", Arguments: map[string]any{"location": "Chicago"}},
}

// goSDKServerCalls are the go-sdk session server's (session_test.go).
var goSDKServerCalls = []peerCall{
	{Name: "count", Arguments: map[string]any{"steps": 3}, Progress: true, Want: 3},
	{Name: "echo", Arguments: map[string]any{"text": "one"}},
	{Name: "fail", Arguments: map[string]any{"text": "x"}},
}

// everythingJS is node and server-everything's entry point in the Node
// dir.
func everythingJS(t *testing.T) (node, js string) {
	t.Helper()
	node = modeltest.NeedNode(t)
	return node, filepath.Join(modeltest.NodeDir(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// startEverythingHTTP runs server-everything over Streamable HTTP on a free
// loopback port and returns its endpoint.
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	node, js := everythingJS(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(node, js, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %s:\n%s", port, logs.String())
		}
	}
	return "http://127.0.0.1:" + port + "/mcp"
}

// tapRun is the tap binary in front of an upstream, writing JSON lines.
type tapRun struct {
	cmd    *exec.Cmd
	addr   string
	events *bufio.Scanner
}

func startTapJSON(t *testing.T, upstream string) *tapRun {
	t.Helper()
	bin, _ := stdioBins(t)
	cmd := exec.Command(bin, "tap", "--upstream", upstream, "--listen", "127.0.0.1:0", "--output", "json")
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := &tapRun{cmd: cmd, events: bufio.NewScanner(stdout)}
	r.events.Buffer(nil, 16<<20)
	listening := regexp.MustCompile(`listening on http://(\S+)`)
	lines := bufio.NewScanner(stderr)
	for r.addr == "" && lines.Scan() {
		if m := listening.FindStringSubmatch(lines.Text()); m != nil {
			r.addr = m[1]
		}
	}
	if r.addr == "" {
		t.Fatal("the tap said no address")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	return r
}

// stop ends the tap (SIGINT: it flushes) and returns its events.
func (r *tapRun) stop(t *testing.T) []model.Event {
	t.Helper()
	r.cmd.Process.Signal(os.Interrupt)
	var evs []model.Event
	for r.events.Scan() {
		e, err := output.DecodeLine(r.events.Bytes())
		if err != nil {
			t.Fatalf("tap output %q: %v", r.events.Text(), err)
		}
		evs = append(evs, e)
		checkPlainLine(t, r.events.Bytes())
	}
	if err := r.cmd.Wait(); err != nil {
		t.Errorf("tap: %v", err)
	}
	return evs
}

// checkPlainLine: a JSON line about plain MCP says no relayed, no context
// verdict and none of the platform's result limits.
func checkPlainLine(t *testing.T, line []byte) {
	t.Helper()
	for kind, field := range map[string]string{"tool.progress": `"relayed"`, "tool.call": `"context"`, "tool.result": `"offloaded"`} {
		if bytes.Contains(line, []byte(`"kind":"`+kind+`"`)) && bytes.Contains(line, []byte(field)) {
			t.Errorf("plain MCP %s with %s: %.300s", kind, field, line)
		}
	}
}

// goPeerSaw is what the go-sdk client got from a server over transport, as
// JSON lines: the tools' names, then each call's result and progress.
func goPeerSaw(t *testing.T, transport mcp.Transport, calls []peerCall) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	progress := map[string][]string{}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-peer", Version: "v1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			tok := fmt.Sprint(req.Params.ProgressToken)
			progress[tok] = append(progress[tok], fmt.Sprintf("%v/%v", req.Params.Progress, req.Params.Total))
		},
	})
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	var out strings.Builder
	line := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	line(names)
	for i, c := range calls {
		params := &mcp.CallToolParams{Name: c.Name, Arguments: c.Arguments}
		tok := "p-" + strconv.Itoa(i)
		if c.Progress {
			params.SetProgressToken(tok)
		}
		res, err := session.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		// The client hands notifications to their handler apart from the
		// answer: wait for those the call sends.
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			n := len(progress[tok])
			mu.Unlock()
			if n >= c.Want {
				break
			}
		}
		mu.Lock()
		line(map[string]any{"name": c.Name, "result": res, "progress": progress[tok]})
		mu.Unlock()
	}
	return out.String()
}

// tsPeerSaw is what the TypeScript SDK's client got from a server: target
// is an http URL, or "stdio" and the server's command.
func tsPeerSaw(t *testing.T, calls []peerCall, target ...string) string {
	t.Helper()
	node := modeltest.NeedNode(t)
	js, _ := json.Marshal(calls)
	cmd := exec.Command(node, append([]string{filepath.Join(modeltest.NodeDir(), "peer-client.mjs")}, target...)...)
	cmd.Env = append(os.Environ(), "TOOLSCOPE_CALLS="+string(js))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client against %v: %v\n%s", target, err, stderr.String())
	}
	return string(out)
}

// checkPlainCalls: the tap saw every call, each answered as the client
// was, with its progress and no relay, no warning about AgentArea's
// contract; it returns the calls by tool.
func checkPlainCalls(t *testing.T, evs []model.Event, calls []peerCall, failing ...string) {
	t.Helper()
	store := model.NewStore(model.Options{})
	for _, e := range evs {
		store.Apply(e)
		if e.Kind == model.KindWarning {
			t.Errorf("warning on plain MCP: %s %s", e.Code, e.Message)
		}
	}
	snap := store.Snapshot()
	byTool := map[string]*model.Call{}
	for _, c := range snap.Calls {
		byTool[c.Tool] = c
	}
	if len(snap.Calls) != len(calls) {
		t.Errorf("the tap saw %d calls, the client made %d", len(snap.Calls), len(calls))
	}
	for _, pc := range calls {
		c := byTool[pc.Name]
		switch {
		case c == nil:
			t.Errorf("the tap did not see %s", pc.Name)
			continue
		case c.Relays || c.AgentArea() || c.Progress.WouldRelay != 0 || c.Context != nil:
			t.Errorf("%s: relays %v, AgentArea %v, would relay %d, context %+v: not plain", pc.Name, c.Relays, c.AgentArea(), c.Progress.WouldRelay, c.Context)
		case c.Flags&(model.FlagOffloaded|model.FlagStructuredDropped|model.FlagLimit) != 0:
			t.Errorf("%s: flags %v: the platform's limits on plain MCP", pc.Name, c.FlagNames())
		case c.Progress.Sent != pc.Want:
			t.Errorf("%s: the tap saw %d progress notifications, want %d", pc.Name, c.Progress.Sent, pc.Want)
		}
		wantStatus := model.StatusOK
		for _, f := range failing {
			if f == pc.Name {
				wantStatus = model.StatusError
			}
		}
		if c.Status != wantStatus {
			t.Errorf("%s: status %s, want %s (%s)", pc.Name, c.Status, wantStatus, c.Cause(time.Now()))
		}
	}
	for _, s := range snap.Sources {
		if s.AgentArea || s.Soat {
			t.Errorf("source %s speaks more than plain MCP: %+v", s.Name, s)
		}
	}
}

// TestPeersThroughTheHTTPTap: the go-sdk and the TypeScript SDK clients,
// against a go-sdk server and server-everything over Streamable HTTP, get
// the same through the tap as without it; the tap shows plain calls.
func TestPeersThroughTheHTTPTap(t *testing.T) {
	goServer := sessionServer(t).URL
	for _, tc := range []struct {
		name     string
		endpoint func(t *testing.T) string
		calls    []peerCall
		failing  []string
		client   func(t *testing.T, endpoint string, calls []peerCall) string
	}{
		{"go client, go-sdk server", func(*testing.T) string { return goServer }, goSDKServerCalls, []string{"fail"}, goHTTPSaw},
		{"TypeScript client, go-sdk server", func(*testing.T) string { return goServer }, goSDKServerCalls, []string{"fail"}, tsHTTPSaw},
		{"go client, server-everything", startEverythingHTTP, everythingCalls, nil, goHTTPSaw},
		{"TypeScript client, server-everything", startEverythingHTTP, everythingCalls, nil, tsHTTPSaw},
	} {
		t.Run(tc.name, func(t *testing.T) {
			upstream := tc.endpoint(t)
			direct := tc.client(t, upstream, tc.calls)
			tap := startTapJSON(t, upstream)
			through := tc.client(t, "http://"+tap.addr, tc.calls) // the tap forwards / to the upstream's path
			if through != direct {
				t.Errorf("through the tap:\n%s\nwithout it:\n%s", through, direct)
			}
			t.Logf("the client got, with and without the tap:\n%s", direct)
			checkPlainCalls(t, tap.stop(t), tc.calls, tc.failing...)
		})
	}
}

func goHTTPSaw(t *testing.T, endpoint string, calls []peerCall) string {
	return goPeerSaw(t, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, calls)
}

func tsHTTPSaw(t *testing.T, endpoint string, calls []peerCall) string {
	return tsPeerSaw(t, calls, endpoint)
}

// goStdioCalls are the go-sdk stdio server's (stream/tap/testdata/stdioserver).
var goStdioCalls = []peerCall{
	{Name: "count", Arguments: map[string]any{"steps": 4}, Progress: true, Want: 4},
	{Name: "echo", Arguments: map[string]any{"text": "héllo", "repeat": 3}},
}

// TestPeersThroughTheStdioTap: the go-sdk and the TypeScript SDK clients
// launching a server over stdio (server-everything, a go-sdk server) get
// the same with `toolscope tap --` before its command as without; the
// recording shows plain calls.
func TestPeersThroughTheStdioTap(t *testing.T) {
	node, js := everythingJS(t)
	bin, goServer := stdioBins(t)
	goClient := func(t *testing.T, calls []peerCall, command ...string) string {
		return goPeerSaw(t, &mcp.CommandTransport{Command: exec.Command(command[0], command[1:]...)}, calls)
	}
	tsClient := func(t *testing.T, calls []peerCall, command ...string) string {
		return tsPeerSaw(t, calls, append([]string{"stdio"}, command...)...)
	}
	for _, tc := range []struct {
		name   string
		server []string
		calls  []peerCall
		client func(t *testing.T, calls []peerCall, command ...string) string
	}{
		{"go client, server-everything", []string{node, js, "stdio"}, everythingCalls, goClient},
		{"TypeScript client, server-everything", []string{node, js, "stdio"}, everythingCalls, tsClient},
		{"TypeScript client, go-sdk server", []string{goServer}, goStdioCalls, tsClient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct := tc.client(t, tc.calls, tc.server...)
			rec := filepath.Join(t.TempDir(), "s.jsonl")
			through := tc.client(t, tc.calls, append([]string{bin, "tap", "--record", rec, "--"}, tc.server...)...)
			if through != direct {
				t.Errorf("through the stdio tap:\n%s\nwithout it:\n%s", through, direct)
			}
			t.Logf("the client got, with and without the tap:\n%s", direct)
			raw, err := os.ReadFile(rec)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
				checkPlainLine(t, line)
			}
			var evs []model.Event
			for _, e := range readRecording(t, rec) {
				if e.Kind != model.KindWire && e.Kind != model.KindSourceStatus {
					evs = append(evs, e)
				}
			}
			checkPlainCalls(t, evs, tc.calls)
		})
	}
}
