package tap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// TestMain removes the stdio server built for the run. The test binary
// also serves as the stdio tap's watchdog.
func TestMain(m *testing.M) {
	if ServeWatchdog() {
		os.Exit(0)
	}
	code := m.Run()
	modeltest.RemoveBinaries()
	os.Exit(code)
}

// stdioServer is testdata/stdioserver (a go-sdk stdio server), built.
func stdioServer(t *testing.T) string {
	return modeltest.Binary(t, "toolscope/stream/tap/testdata/stdioserver")
}

// eventLog collects every event and applies it to a store.
type eventLog struct {
	mu    sync.Mutex
	evs   []model.Event
	store *model.Store
	hub   *output.Hub
}

func newEventLog() *eventLog {
	l := &eventLog{store: model.NewStore(model.Options{})}
	l.hub = output.NewHub(l.store)
	return l
}

func (l *eventLog) Emit(e model.Event) {
	l.mu.Lock()
	l.evs = append(l.evs, e)
	l.mu.Unlock()
	l.hub.Emit(e)
}

func (l *eventLog) events() []model.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]model.Event(nil), l.evs...)
}

func (l *eventLog) count(kind model.Kind, code string) int {
	n := 0
	for _, e := range l.events() {
		if e.Kind == kind && (code == "" || e.Code == code) {
			n++
		}
	}
	return n
}

// stdioRun is RunStdio in the background, its stdin and stdout as pipes.
type stdioRun struct {
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	stderr *modeltest.LockedBuffer
	log    *eventLog
	done   chan struct{}
	code   int
	err    error
}

func startStdio(t *testing.T, ctx context.Context, cfg Config, command ...string) *stdioRun {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &stdioRun{stdin: inW, stdout: outR, stderr: &modeltest.LockedBuffer{}, log: newEventLog(), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.code, r.err = RunStdio(ctx, cfg, command, inR, outW, r.stderr, r.log)
		outW.Close()
		inR.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		r.wait(t)
	})
	return r
}

func (r *stdioRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		t.Fatal("RunStdio did not return")
	}
	if r.err != nil {
		t.Fatalf("RunStdio: %v", r.err)
	}
	return r.code
}

// TestStdioSDKThroughTap: a go-sdk client and a go-sdk stdio server get
// the same answers through the tap as directly, and the tap reports the
// call, its progress and its result; the server's stderr and exit code
// (7 on stdin's end) pass through.
func TestStdioSDKThroughTap(t *testing.T) {
	server := stdioServer(t)
	direct, directProgress := sdkCall(t, &mcp.CommandTransport{Command: exec.Command(server)}, 4, 5, 5)

	r := startStdio(t, context.Background(), Config{InstanceName: "Counter Server"}, server)
	through, progress := sdkCall(t, &mcp.IOTransport{Reader: r.stdout, Writer: r.stdin}, 4, 5, 5)
	text, directText := through.Content[0].(*mcp.TextContent).Text, direct.Content[0].(*mcp.TextContent).Text
	if text != directText || fmt.Sprint(progress) != fmt.Sprint(directProgress) {
		t.Errorf("through the tap %q %v, direct %q %v", text, progress, directText, directProgress)
	}
	if code := r.wait(t); code != 7 {
		t.Errorf("exit code %d, want the server's 7", code)
	}
	if !strings.Contains(r.stderr.String(), "stdioserver: ready") {
		t.Errorf("stderr %q lacks the server's", r.stderr.String())
	}
	s := r.log.store.Snapshot()
	var c *model.Call
	for _, call := range s.Calls {
		if call.Tool == "count" {
			c = call
		}
	}
	if c == nil || c.Status != model.StatusOK || c.Progress.Sent != 5 || c.AgentName != "mcp__counter_server__count" {
		t.Fatalf("count call %+v\n%s", c, dump(s))
	}
	if a := c.LastAttempt(); a == nil || !a.HasResult || a.Result.TextChars != len("counted to 5") {
		t.Errorf("result not recorded: %+v", a)
	}
	if c.Context != nil { // plain MCP: no token to miss
		t.Errorf("context %+v, want none", c.Context)
	}
	if c.Relays || c.Progress.WouldRelay != 0 || c.AgentArea() { // nothing relays a stdio server's progress
		t.Errorf("relays %v, would relay %d, AgentArea %v", c.Relays, c.Progress.WouldRelay, c.AgentArea())
	}
	var sawInit, sawList bool
	for _, e := range s.Other {
		// A 2026-07-28 session starts with server/discover; with its answer summarised.
		sawInit = sawInit || (e.EventType == "mcp.initialize" || e.EventType == "mcp.server/discover") && strings.Contains(string(e.Data), `"capabilities"`)
		sawList = sawList || e.EventType == "mcp.tools/list" && strings.Contains(string(e.Data), `"count":4`)
	}
	if !sawInit || !sawList {
		t.Errorf("initialize (with its answer) seen %v, tools/list seen %v\n%s", sawInit, sawList, dump(s))
	}
	if n := r.log.count(model.KindWarning, ""); n != 0 {
		t.Errorf("%d warnings: %+v", n, r.log.events())
	}
}

// rawInit is the start of a session, as a client writes it.
const rawInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}
`

// readLines reads the tap's stdout in the background, one line per send.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return lines
}

func waitLine(t *testing.T, lines <-chan string, contains string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended before a line with %q", contains)
			}
			if strings.Contains(l, contains) {
				return l
			}
		case <-timeout:
			t.Fatalf("no line with %q", contains)
		}
	}
}

// TestStdioChildCrashMidCall: the server exits (code 3) during a call: the
// tap exits 3 and the open call ends with an error that says so, its
// progress kept.
func TestStdioChildCrashMidCall(t *testing.T) {
	r := startStdio(t, context.Background(), Config{}, stdioServer(t))
	lines := readLines(r.stdout)
	io.WriteString(r.stdin, rawInit)
	waitLine(t, lines, `"id":1`)
	io.WriteString(r.stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{"code":3},"_meta":{"progressToken":"p2"}}}`+"\n")
	if code := r.wait(t); code != 3 {
		t.Fatalf("exit code %d, want the server's 3", code)
	}
	s := r.log.store.Snapshot()
	if len(s.Calls) != 1 {
		t.Fatalf("%d calls\n%s", len(s.Calls), dump(s))
	}
	c := s.Calls[0]
	a := c.LastAttempt()
	if c.Status != model.StatusError || a == nil || !strings.Contains(a.Result.Error, "the server exited (code 3) before answering") || c.Progress.Sent != 1 {
		t.Errorf("crashed call %+v %+v\n%s", c, a, dump(s))
	}
	if !strings.Contains(r.stderr.String(), "crashing on purpose") {
		t.Errorf("stderr %q", r.stderr.String())
	}
}

// TestStdioManyMegabytesUnchanged: a message of several MB (and a last
// line without its newline) passes byte for byte both ways.
func TestStdioManyMegabytesUnchanged(t *testing.T) {
	r := startStdio(t, context.Background(), Config{}, stdioServer(t), "-cat")
	big := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("é\\u00e9x", 500_000) + `"}}}` + "\n"
	in := big + rawInit + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}` + "\n" + `{"partial":`
	var out []byte
	read := make(chan error, 1)
	go func() {
		var err error
		out, err = io.ReadAll(r.stdout)
		read <- err
	}()
	go func() {
		io.WriteString(r.stdin, in)
		r.stdin.Close()
	}()
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, []byte(in)) {
		t.Fatalf("%d bytes out, %d in: not the same", len(out), len(in))
	}
	r.wait(t)
	var sawCall, sawCancel bool
	for _, e := range r.log.events() {
		sawCall = sawCall || e.Kind == model.KindToolCall && e.Tool == "echo" && len(e.Arguments) > 4_000_000
		sawCancel = sawCancel || e.Kind == model.KindToolCancelled && e.RequestID == "9"
	}
	if !sawCall || !sawCancel {
		t.Errorf("call seen %v, its cancellation seen %v: %d events", sawCall, sawCancel, len(r.log.events()))
	}
}

// TestStdioOversizedResult: a result over --max-parse-bytes is forwarded
// whole, not parsed (parse_skipped), and still ends its call.
func TestStdioOversizedResult(t *testing.T) {
	r := startStdio(t, context.Background(), Config{MaxParseBytes: 64 << 10}, stdioServer(t))
	lines := readLines(r.stdout)
	io.WriteString(r.stdin, rawInit)
	waitLine(t, lines, `"id":1`)
	io.WriteString(r.stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"abc","repeat":100000}}}`+"\n")
	res := waitLine(t, lines, `"id":2`)
	if !strings.Contains(res, strings.Repeat("ABC", 100000)) {
		t.Fatalf("result of %d bytes lacks the text", len(res))
	}
	r.stdin.Close()
	r.wait(t)
	s := r.log.store.Snapshot()
	if len(s.Calls) != 1 || s.Calls[0].Status != model.StatusOK || r.log.count(model.KindWarning, "parse_skipped") != 1 {
		t.Fatalf("%s\n%+v", dump(s), r.log.events())
	}
	for _, e := range r.log.events() {
		if e.Code == "parse_skipped" && !strings.Contains(e.Message, "from the server (the answer to id 2) is over --max-parse-bytes (65536)") {
			t.Errorf("warning %q", e.Message)
		}
	}
}

// TestStdioClientClosesStdin: the client closes its stdin during a call:
// the server sees its stdin end and exits (7), the tap exits 7, and the
// call is over in the recording.
func TestStdioClientClosesStdin(t *testing.T) {
	r := startStdio(t, context.Background(), Config{}, stdioServer(t))
	lines := readLines(r.stdout)
	io.WriteString(r.stdin, rawInit)
	waitLine(t, lines, `"id":1`)
	io.WriteString(r.stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"steps":400},"_meta":{"progressToken":2}}}`+"\n")
	waitLine(t, lines, `notifications/progress`)
	r.stdin.Close()
	if code := r.wait(t); code != 7 {
		t.Fatalf("exit code %d, want 7", code)
	}
	s := r.log.store.Snapshot()
	if len(s.Calls) != 1 || s.Calls[0].Status != model.StatusCancelled || s.Calls[0].LastAttempt().Cancelled != "the client closed its stdin" {
		t.Fatalf("call not cancelled by the client's leaving:\n%s", dump(s))
	}
}

// TestStdioStopsChildOnCancel: when ctx ends the child gets SIGTERM, and
// its death by that signal is the exit code a shell reports (143).
func TestStdioStopsChildOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := startStdio(t, ctx, Config{}, stdioServer(t))
	lines := readLines(r.stdout)
	io.WriteString(r.stdin, rawInit)
	waitLine(t, lines, `"id":1`)
	cancel()
	if code := r.wait(t); code != 143 {
		t.Fatalf("exit code %d, want 143 (SIGTERM)", code)
	}
}

// TestStdioVerifiesTokenInMeta: with no headers on stdio, a token in
// _meta["X-AgentArea-Context"] is verified as the header's would be, and
// its signature reaches no event.
func TestStdioVerifiesTokenInMeta(t *testing.T) {
	r := startStdio(t, context.Background(), Config{Secrets: [][]byte{testSecret}, InstanceID: testInstanceID}, stdioServer(t), "-cat")
	go io.Copy(io.Discard, r.stdout)
	meta := contractMeta("task-1", "call_a", 1)
	good := mintToken(t, testSecret, "read", meta, nil)
	withToken := func(token string) map[string]any {
		m := map[string]any{jsonrpc.MetaContextToken: token}
		for k, v := range meta {
			m[k] = v
		}
		return m
	}
	io.WriteString(r.stdin, string(callBody(t, 1, "read", map[string]any{}, withToken(good)))+"\n")
	io.WriteString(r.stdin, string(callBody(t, 2, "read", map[string]any{}, withToken(mintToken(t, []byte("another-secret-of-enough-length-0123456789"), "read", meta, nil))))+"\n")
	io.WriteString(r.stdin, string(callBody(t, 3, "read", map[string]any{}, nil))+"\n")
	r.stdin.Close()
	r.wait(t)
	verdicts := map[string]string{}
	for _, e := range r.log.events() {
		if e.Kind == model.KindToolCall && e.Context != nil {
			verdicts[e.RequestID] = string(e.Context.Verdict)
		}
		line := output.EncodeLine(&e)
		if sig := good[strings.LastIndexByte(good, '.')+1:]; strings.Contains(string(line), sig) {
			t.Errorf("the token's signature is in %s", line)
		}
	}
	want := map[string]string{"1": string(model.VerdictValid), "2": string(model.VerdictRejected), "3": string(model.VerdictRejected)}
	if fmt.Sprint(verdicts) != fmt.Sprint(want) {
		t.Fatalf("verdicts %v, want %v", verdicts, want)
	}
}
