package cli

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// unguardedServer is a go-sdk MCP server that checks no credential and no
// context token: every call runs its tool.
func unguardedServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var runs atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "unguarded", Version: "1.0.0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp", &runs
}

func TestProbeExitCodes(t *testing.T) {
	url, runs := unguardedServer(t)
	t.Setenv("TOOLSCOPE_CONTEXT_SECRET", "probe-cmd-test-secret-0123456789abcdef")
	t.Setenv(credentialEnv, "Authorization: Bearer cred-1")
	dir := t.TempDir()
	junit := filepath.Join(dir, "probe.xml")

	var code int
	out := captureStdout(t, func() {
		code = run([]string{"probe", url, "--instance-id", "3f0c9b7e-1111-4a2b-8c3d-000000000001", "--output", "json", "--junit", junit})
	})
	if code != 1 {
		t.Fatalf("probe of a server that checks nothing: exit %d, want 1\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		Kind           string `json:"kind"`
		Pass           bool   `json:"pass"`
		RequiredFailed int    `json:"required_failed"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Kind != "probe.summary" || last.Pass || last.RequiredFailed == 0 {
		t.Errorf("last line %q: want a failing probe.summary", lines[len(lines)-1])
	}
	var alg struct {
		Kind, Case string
		Required   bool
		Pass       bool
		Actual     struct {
			HTTPStatus int `json:"http_status"`
		}
	}
	for _, l := range lines {
		if strings.Contains(l, `"case":"alg_none"`) {
			_ = json.Unmarshal([]byte(l), &alg)
		}
	}
	if alg.Kind != "probe.case" || !alg.Required || alg.Pass || alg.Actual.HTTPStatus != 200 {
		t.Errorf("alg_none line = %+v, want a failed required probe.case answered 200", alg)
	}
	if runs.Load() < 20 {
		t.Errorf("the unguarded server ran its tool %d times; every case should have run it", runs.Load())
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Failures != last.RequiredFailed {
		t.Errorf("junit: %v %+v, want one suite with %d failures", err, suites, last.RequiredFailed)
	}

	out = captureStdout(t, func() { code = run([]string{"probe", "--demo", "--output", "text", "--strict"}) })
	if code != 0 || !strings.Contains(out, "PASS: every required case passed") {
		t.Errorf("probe --demo: exit %d, want 0\n%s", code, out)
	}

	out = captureStdout(t, func() { code = run([]string{"probe", "--demo", "--output", "tui", "--only", "valid"}) })
	if code != 0 || !strings.Contains(out, "CASE ") || !strings.Contains(out, "valid ") {
		t.Errorf("--output tui: exit %d, want the text table\n%s", code, out)
	}
	out = captureStdout(t, func() { code = run([]string{"probe", "--list", "--strict"}) })
	if code != 0 || !strings.Contains(out, "idempotent_replay        yes") {
		t.Errorf("--list --strict: exit %d, want idempotent_replay required\n%s", code, out)
	}

	for _, args := range [][]string{
		{"probe"},
		{"probe", url},
		{"probe", "not a url", "--instance-id", "x"},
		{"probe", url, "--instance-id", "x", "--only", "valid,nope"},
		{"probe", url, "--instance-id", "x", "--args", "[1]"},
		{"probe", url, "--instance-id", "x", "--output", "yaml"},
		{"probe", "--demo", url},
	} {
		if code := run(args); code != 2 {
			t.Errorf("toolscope %v: exit %d, want 2", args, code)
		}
	}
	t.Setenv(credentialEnv, "Bearer but no header name")
	if code := run([]string{"probe", url, "--instance-id", "x"}); code != 2 {
		t.Errorf("a credential that is no header line: exit %d, want 2", code)
	}
	t.Setenv("TOOLSCOPE_CONTEXT_SECRET", "")
	if code := run([]string{"probe", url, "--instance-id", "x"}); code != 2 {
		t.Errorf("no secret: exit %d, want 2", code)
	}
}

// TestProbeOfAServerThatIsDown: a server that cannot be reached is one line
// on stderr (what failed, where, what to check), exit 1, and a JUnit file
// with one failing testcase naming the cause, in every output mode.
func TestProbeOfAServerThatIsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	t.Setenv("TOOLSCOPE_CONTEXT_SECRET", "probe-cmd-test-secret-0123456789abcdef")
	for _, output := range []string{"text", "json", "tui"} { // tui without a terminal: the text table
		for _, tool := range []string{"", "ping"} {
			junit := filepath.Join(t.TempDir(), "probe.xml")
			args := []string{"probe", down, "--instance-id", "x", "--output", output, "--junit", junit}
			if tool != "" {
				args = append(args, "--tool", tool)
			}
			var code int
			var stderr string
			stdout := captureStdout(t, func() { code, stderr = runCapturingStderr(t, args) })
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			want := "toolscope probe: cannot reach " + down + ": connection refused; check that the server is running"
			if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
				t.Errorf("%v: exit %d, stderr %q; want 1 and one line %q...", args, code, stderr, want)
			}
			if strings.Contains(stdout+stderr, "HTTP 0") {
				t.Errorf("%v says HTTP 0: %s%s", args, stdout, stderr)
			}
			if output == "json" && !strings.Contains(stdout, `"kind":"probe.summary"`) || output != "json" && stdout != "" {
				t.Errorf("%v: stdout %q", args, stdout)
			}
			b, err := os.ReadFile(junit)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Suites []struct {
					Tests    int `xml:"tests,attr"`
					Failures int `xml:"failures,attr"`
					Cases    []struct {
						Name    string `xml:"name,attr"`
						Failure *struct {
							Message string `xml:"message,attr"`
						} `xml:"failure"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(b, &doc); err != nil || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 {
				t.Fatalf("%v: junit %v\n%s", args, err, b)
			}
			s := doc.Suites[0]
			if s.Tests != 1 || s.Failures != 1 || s.Cases[0].Name != "reach_server" || s.Cases[0].Failure == nil ||
				!strings.Contains(s.Cases[0].Failure.Message, "connection refused") {
				t.Errorf("%v: junit %s", args, b)
			}
		}
	}
}
