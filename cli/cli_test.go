package cli

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"

	"toolscope/model/modeltest"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{}, 2},
		{[]string{"--help"}, 0},
		{[]string{"frobnicate"}, 2},
		{[]string{"replay", "--help"}, 0},
		{[]string{"replay", "--no-such-flag"}, 2},
		{[]string{"replay"}, 2},
		{[]string{"replay", "testdata/missing.jsonl", "--output", "json"}, 1},
		{[]string{"replay", modeltest.SessionFile(), "--output", "yaml"}, 2},
		{[]string{"replay", modeltest.SessionFile(), "--speed", "0", "--output", "json"}, 0},
	}
	for _, tc := range cases {
		if got := run(tc.args); got != tc.want {
			t.Errorf("toolscope %v: exit %d, want %d", tc.args, got, tc.want)
		}
	}
}

// TestWatchBounds: a feed URL that cannot be one is a usage error at start,
// and a feed that cannot connect ends headless output with exit 1.
func TestWatchBounds(t *testing.T) {
	if got := run([]string{"watch", "not-a-url", "--output", "json"}); got != 2 {
		t.Errorf("watch not-a-url: exit %d, want 2", got)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // nothing listens there now: every connection is refused
	refused := "http://" + ln.Addr().String() + "/v1/agents/a/tasks/t1/events/stream"
	if got := run([]string{"watch", refused, "--output", "json", "--give-up-after", "200ms"}); got != 1 {
		t.Errorf("watch of a refused feed: exit %d, want 1", got)
	}
}

// TestDecodeOnATerminalShowsUsage: with no token and stdin a terminal,
// decode prints its usage and exits 2 instead of waiting for a paste.
func TestDecodeOnATerminalShowsUsage(t *testing.T) {
	old := stdinIsTerminal
	stdinIsTerminal = func() bool { return true }
	defer func() { stdinIsTerminal = old }()
	code := -1
	said := capture(t, &os.Stderr, func() { code = run([]string{"decode"}) })
	if code != 2 || !strings.Contains(said, "Usage: toolscope decode") {
		t.Errorf("exit %d, said %q; want 2 and the usage", code, said)
	}
}

// TestDecodeErrorsGoToStderr: decode's usage errors (a --call body with no
// tools/call, a --header that is not one) go to stderr, exit 2, and leave
// stdout empty: stdout is the report.
func TestDecodeErrorsGoToStderr(t *testing.T) {
	call := t.TempDir() + "/call.json"
	if err := os.WriteFile(call, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"decode", "a.b.c", "--call", call}, {"decode", "a.b.c", "--call", call, "--header", "no colon"}} {
		code := -1
		var said string
		out := capture(t, &os.Stdout, func() {
			said = capture(t, &os.Stderr, func() { code = run(args) })
		})
		if code != 2 || out != "" || !strings.Contains(said, "toolscope decode:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, the error", args, code, out, said)
		}
	}
}

// TestRoughEdges: a recording with no good line exits 1; the command's name
// is not said twice in an error.
func TestRoughEdges(t *testing.T) {
	bad := t.TempDir() + "/bad.jsonl"
	if err := os.WriteFile(bad, []byte("garbage\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	said := capture(t, &os.Stderr, func() {
		if got := run([]string{"replay", bad, "--output", "text", "--speed", "0"}); got != 1 {
			t.Errorf("replay of malformed lines only: exit %d, want 1", got)
		}
		if got := run([]string{"replay", t.TempDir(), "--output", "text"}); got != 1 {
			t.Errorf("replay of a directory: exit %d, want 1", got)
		}
	})
	if strings.Contains(said, "replay: replay:") || !strings.Contains(said, "no line is a toolscope event") {
		t.Errorf("stderr: %q", said)
	}
	for _, c := range [][3]string{{"tap", "tap tap: listen tcp: in use", "listen tcp: in use"},
		{"replay", "replay: read x", "read x"}, {"tap", "tap tap2: x", "tap tap2: x"}} {
		if got := errText(c[0], errors.New(c[1])); got != c[2] {
			t.Errorf("errText(%q) = %q, want %q", c[1], got, c[2])
		}
	}
}

// TestDecodeStdinCut: a token on standard input over 1 MiB is refused as
// cut (exit 2), not decoded from its first megabyte ("has 2 parts").
func TestDecodeStdinCut(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "token")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("eyJhbGciOiJIUzI1NiJ9." + strings.Repeat("A", maxTokenInput) + ".sig")
	f.Seek(0, 0)
	defer func(in *os.File) { os.Stdin = in }(os.Stdin)
	os.Stdin = f
	if got := run([]string{"decode", "-"}); got != 2 {
		t.Fatalf("exit %d, want 2", got)
	}
	if _, err := readToken(strings.NewReader(strings.Repeat("a", maxTokenInput+1))); err == nil || !strings.Contains(err.Error(), "cut there") {
		t.Fatalf("err %v", err)
	}
	if tok, err := readToken(strings.NewReader("a.b.c\n")); err != nil || tok != "a.b.c\n" {
		t.Fatalf("%q %v", tok, err)
	}
}
