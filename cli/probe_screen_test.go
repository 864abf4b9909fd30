package cli

import (
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/demo"
	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/stream/probe"
	"toolscope/ui"
)

// demoProbeConfig probes the demo's own MCP server, credential included.
func demoProbeConfig(t *testing.T) (probe.Config, string) {
	t.Helper()
	s := demo.StartServer(1)
	t.Cleanup(s.Close)
	return probe.Config{URL: s.URL, InstanceID: s.InstanceID, Secret: s.Secret, Tool: s.Tool, Args: s.Args,
		Credential: probe.Credential{Name: "Authorization", Value: "Bearer " + s.Credential}, Timeout: 10 * time.Second}, s.Credential
}

// TestProbeScreenShowsRedactedRequests: every case of a real probe, as
// probe_cmd hands it to the screen, shows the request with the credential
// and the token's signature redacted, on every page of its detail.
func TestProbeScreenShowsRedactedRequests(t *testing.T) {
	cfg, credential := demoProbeConfig(t)
	m := ui.NewProbe(ui.ProbeOptions{Target: probe.ShownURL(cfg.URL), Cases: plannedCases(probe.Cases(), false)})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	cfg.OnCase = func(r probe.Result) { m.Update(ui.ProbeCaseDone(screenCase(r, cfg.URL))) }
	rep, err := probe.Run(context.Background(), cfg)
	code, why := concludeProbe(withStop(rep, err, len(probe.Cases())), nil)
	m.Update(ui.ProbeEnded(model.ProbeEnd{Tool: rep.Tool, ExitCode: code, Err: why, Duration: rep.Duration}))
	if code != 0 || !strings.Contains(m.View(), "exit 0") {
		t.Fatalf("probe of the demo: exit %d (%s)\n%s", code, why, m.View())
	}
	key := func(k tea.KeyType, r ...rune) { m.Update(tea.KeyMsg{Type: k, Runes: r}) }
	for i, c := range m.Cases() {
		if !c.Done || !c.Pass {
			t.Errorf("%s: done=%v pass=%v %s", c.ID, c.Done, c.Pass, c.Message)
		}
		// credential_missing leaves the credential out: that is its case
		withCredential := c.ID != "credential_missing"
		if !strings.HasPrefix(c.Request, "POST ") || strings.Contains(c.Request, "Authorization: Bearer [redacted]") != withCredential {
			t.Errorf("%s: request with the credential %v, want %v:\n%s", c.ID, !withCredential, withCredential, c.Request)
		}
		for _, l := range strings.Split(c.Request, "\n") {
			if strings.HasPrefix(l, "X-Agentarea-Context: ") && c.ID != "token_not_jwt" && !strings.HasSuffix(l, ".[redacted]") {
				t.Errorf("%s: token shown as %q, want its signature redacted", c.ID, l)
			}
		}
		// Every page of the detail, as the terminal would get it.
		key(tea.KeyRunes, 'g')
		for range i {
			key(tea.KeyRunes, 'j')
		}
		key(tea.KeyEnter)
		var pages strings.Builder
		for prev := ""; ; key(tea.KeyPgDown) {
			v := m.View()
			if v == prev {
				break
			}
			pages.WriteString(v)
			prev = v
		}
		key(tea.KeyEsc)
		if strings.Contains(pages.String(), credential) || strings.Contains(pages.String(), "Bearer [redacted]") != withCredential {
			t.Errorf("%s: the detail shows the credential, or not its redacted form", c.ID)
		}
		if !strings.Contains(pages.String(), "ANSWER · the first 4 KiB") || !strings.Contains(pages.String(), `"jsonrpc": "2.0"`) {
			t.Errorf("%s: the detail lacks the answer, indented", c.ID)
		}
	}
}

// probeWithScreen runs probeOnScreen with a played terminal: it presses q
// once the screen shows "exit ", and returns the exit code, the frames and
// what was printed after the screen closed.
func probeWithScreen(t *testing.T, cfg probe.Config, junit io.Writer) (int, string, string) {
	t.Helper()
	in, keys := io.Pipe()
	frames := &modeltest.LockedBuffer{}
	probeScreenInput, probeScreenOutput = in, frames
	t.Cleanup(func() { probeScreenInput, probeScreenOutput = nil, nil; keys.Close() })
	go func() {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if strings.Contains(frames.String(), "· exit ") {
				time.Sleep(100 * time.Millisecond) // the screen stays: q is what closes it
				_, _ = keys.Write([]byte("q"))
				return
			}
		}
		keys.Close()
	}()
	var code int
	stdout := captureStdout(t, func() {
		code = probeOnScreen(context.Background(), cfg, plannedCases(probe.Cases(), false), junit)
	})
	return code, frames.String(), stdout
}

// TestProbeOnScreenExitCode: under the screen the command exits with the
// probe's code, the one the screen's last line showed, writes the JUnit
// file and leaves the verdict printed once the screen has closed.
func TestProbeOnScreenExitCode(t *testing.T) {
	url, _ := unguardedServer(t)
	junitPath := filepath.Join(t.TempDir(), "probe.xml")
	junit, err := os.Create(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	defer junit.Close()
	cfg := probe.Config{URL: url, InstanceID: "3f0c9b7e-1111-4a2b-8c3d-000000000001", Secret: []byte("probe-screen-test-secret-0123456789"),
		Credential: probe.Credential{Name: "Authorization", Value: "Bearer cred-1"}, Timeout: 10 * time.Second}
	code, frames, stdout := probeWithScreen(t, cfg, junit)
	if code != 1 || !strings.Contains(frames, "✕ FAIL") || !strings.Contains(frames, "· exit 1") {
		t.Errorf("a server that checks nothing: exit %d; the screen showed exit 1: %v", code, strings.Contains(frames, "· exit 1"))
	}
	if !strings.Contains(stdout, "FAIL: ") {
		t.Errorf("no verdict printed after the screen closed: %q", stdout)
	}
	b, _ := os.ReadFile(junitPath)
	var suites struct {
		Suites []struct {
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Failures == 0 {
		t.Errorf("junit under the screen: %v %+v", err, suites)
	}

	demoCfg, _ := demoProbeConfig(t)
	code, frames, stdout = probeWithScreen(t, demoCfg, nil)
	if code != 0 || !strings.Contains(frames, "✓ PASS") || !strings.Contains(frames, "· exit 0") || !strings.Contains(stdout, "PASS: every required case passed") {
		t.Errorf("the demo server: exit %d, stdout %q", code, stdout)
	}
}
