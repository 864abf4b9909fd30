package cli

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"toolscope/decoder/token"
)

// TestTapStartupRefusals: --enforce without a context secret and a
// --timeout outside 1s..1800s (0s included, which once became 300 s) stop
// the tap before it starts: exit 2 and one line on stderr (issue 11 item 6).
func TestTapStartupRefusals(t *testing.T) {
	t.Setenv(token.SecretEnv, "")
	base := []string{"tap", "--upstream", "http://127.0.0.1:9/mcp", "--listen", "127.0.0.1:0", "--output", "json"}
	cases := []struct {
		name string
		args []string
		line string
	}{
		{"enforce without a secret", []string{"--enforce"}, "--enforce needs a context secret"},
		{"timeout 0s", []string{"--timeout", "0s"}, "--timeout 0s is outside 1s..1800s"},
		{"timeout 500ms", []string{"--timeout", "500ms"}, "outside 1s..1800s"},
		{"timeout 1801s", []string{"--timeout", "1801s"}, "outside 1s..1800s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runCapturingStderr(t, append(append([]string{}, base...), tc.args...))
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.line) {
				t.Fatalf("exit %d, stderr %q; want 2 and one line saying %q", code, stderr, tc.line)
			}
		})
	}
}

// runCapturingStderr runs the command with stderr captured; a command that
// does not return within 5 s (a tap that started) fails the test.
func runCapturingStderr(t *testing.T, args []string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan int, 1)
	go func() { done <- run(args) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(5 * time.Second):
		os.Stderr = saved
		t.Fatalf("toolscope %v did not stop: it started instead of refusing", args)
	}
	os.Stderr = saved
	w.Close()
	out, _ := io.ReadAll(r)
	return code, string(out)
}
