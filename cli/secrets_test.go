package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/stream/tap"
	"toolscope/ui"
)

// TestSecretsReachNoOutput runs the one table of secrets (modeltest.Secrets)
// through every output as cli wires them, each checked as a reader of it
// sees it: the JSON lines on stdout, the text lines, the --record file, the
// OpenTelemetry export (a real loopback collector, the protobuf bodies it
// received), the screen's table, detail and event log as rendered, the `y`
// copy (the OSC 52 payload decoded), a real stdio tap's command line, and
// every tool and resource of the --mcp-listen server.
func TestSecretsReachNoOutput(t *testing.T) {
	tb := modeltest.Secrets()
	for _, mode := range []string{"json", "text"} {
		t.Run(mode, func(t *testing.T) {
			collector := newSpanNames(t)
			record := filepath.Join(t.TempDir(), "rec.jsonl")
			o := outputFlags{record: record, otlp: collector.URL, redactor: model.NewRedactor(tb.Redaction()),
				mcp: mcpFlags{listen: "127.0.0.1:0"}}
			var p *pipeline
			var served string // what the --mcp-listen server answers
			stdout := captureStdout(t, func() {
				var err error
				if p, err = newPipeline(o, mode); err != nil {
					t.Fatal(err)
				}
				for _, e := range tb.Events() {
					p.hub.Emit(e)
				}
				runStdioTapWithArgv(t, tb.Argv, p.hub)
				served = mcpServed(t, p)
				p.close("test")
			})
			tb.Check(t, "the MCP server ("+mode+")", served)
			mustShow(t, "the MCP server ("+mode+")", served, modeltest.Visible...)
			tb.Check(t, "stdout ("+mode+")", stdout)
			mustShow(t, "stdout ("+mode+")", stdout, "ledger-server", "--token "+model.Redacted) // the tap's command line
			rec, err := os.ReadFile(record)
			if err != nil {
				t.Fatal(err)
			}
			tb.Check(t, "--record", string(rec))
			mustShow(t, "--record", string(rec), modeltest.Visible...)
			tb.Check(t, "OTLP export", string(collector.received()))
			mustShow(t, "OTLP export", string(collector.received()), "export_ledger")
			if mode == "json" {
				checkScreen(t, tb, p.store)
			}
		})
	}
}

// runStdioTapWithArgv runs a real stdio tap over a child whose command
// line carries the table's argv secrets (a shell that ignores them).
func runStdioTapWithArgv(t *testing.T, argv []string, sink model.Sink) {
	t.Helper()
	command := append([]string{"/bin/sh", "-c", "cat >/dev/null"}, argv...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := tap.RunStdio(ctx, tap.Config{Name: "ledger"}, command, strings.NewReader(""), io.Discard, io.Discard, sink); err != nil {
		t.Fatalf("stdio tap: %v", err)
	}
}

// checkScreen renders the store as the user sees it: the table, the call's
// detail, the event log, and the `y` copy of the call.
func checkScreen(t *testing.T, tb *modeltest.SecretTable, store *model.Store) {
	t.Helper()
	clip := &modeltest.LockedBuffer{}
	tm := teatest.NewTestModel(t, ui.New(store, ui.Options{Clipboard: clip, Now: func() time.Time {
		return time.Date(2026, 11, 30, 12, 0, 1, 0, time.UTC)
	}}), teatest.WithInitialTermSize(240, 300))
	var frames bytes.Buffer
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			frames.Write(b)
			return strings.Contains(frames.String(), what)
		}, teatest.WithDuration(10*time.Second))
	}
	waitFor("export_ledger")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor("HEADERS")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	waitFor("clipboard")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("l")})
	waitFor("llm.call.started")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	tb.Check(t, "the screen (table, detail, event log)", frames.String())
	mustShow(t, "the screen's detail", frames.String(), "Bearer", model.Redacted)

	raw := clip.String()
	start := strings.Index(raw, "]52;c;")
	end := strings.IndexAny(raw[max(start, 0):], "\a\x1b")
	if start < 0 || end < 0 {
		t.Fatalf("no OSC 52 copy in %q", raw)
	}
	payload, err := base64.StdEncoding.DecodeString(raw[start+len("]52;c;") : start+end])
	if err != nil {
		t.Fatal(err)
	}
	tb.Check(t, "the y copy", string(payload))
	mustShow(t, "the y copy", string(payload), modeltest.Visible...)
}

// TestProbeSecretsReachNoOutput: probe's JSON lines, text table, JUnit file
// and stderr hold none of the table's secrets: its credential, its context
// secret, the password and api_key of its URL (in every transport error),
// nor what a server echoes of them (the tokens it was sent included).
func TestProbeSecretsReachNoOutput(t *testing.T) {
	tb := modeltest.Secrets()
	dir := t.TempDir()
	secretFile, credFile := filepath.Join(dir, "secret"), filepath.Join(dir, "cred")
	if err := os.WriteFile(secretFile, []byte(tb.ContextSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(credFile, []byte("Authorization: Bearer "+tb.Bearer), 0o600); err != nil {
		t.Fatal(err)
	}
	// An echoing server: every answer repeats the request's headers.
	var mu sync.Mutex
	var sent []string
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		for k, vs := range r.Header {
			fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(vs, ", "))
		}
		mu.Lock()
		if tok := r.Header.Get(model.ContextHeader); strings.Count(tok, ".") == 2 {
			if sig := tok[strings.LastIndexByte(tok, '.')+1:]; len(sig) >= 16 { // not the alg:none case's empty one
				sent = append(sent, sig)
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":%q}}`, b.String())
	}))
	defer echo.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	withCredentials := func(hostport string) string {
		return "http://user:" + tb.URLPassword + "@" + hostport + "/mcp?api_key=" + tb.QueryKey
	}
	common := []string{"--instance-id", "7c0d5a4e-0b1f-4c55-9d2a-1f3e5b6a7c8d", "--secret-file", secretFile,
		"--credential-file", credFile, "--case-timeout", "5s"}
	for _, c := range []struct {
		name, url string
		args      []string
	}{
		{"answering json", withCredentials(strings.TrimPrefix(echo.URL, "http://")), []string{"--output", "json", "--tool", "export_ledger"}},
		{"answering text", withCredentials(strings.TrimPrefix(echo.URL, "http://")), []string{"--output", "text", "--tool", "export_ledger"}},
		{"down, with a tool", withCredentials(dead), []string{"--output", "json", "--tool", "export_ledger"}},
		{"down, listing tools", withCredentials(dead), []string{"--output", "json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			junit := filepath.Join(t.TempDir(), "probe.xml")
			args := append(append([]string{"probe", c.url, "--junit", junit}, common...), c.args...)
			var stderr string
			stdout := captureStdout(t, func() {
				stderr = capture(t, &os.Stderr, func() { run(args) })
			})
			xml, _ := os.ReadFile(junit)
			mu.Lock()
			signatures := append([]string(nil), sent...)
			mu.Unlock()
			for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "JUnit": string(xml)} {
				if text == "" {
					continue // a run that stopped writes no JUnit; one that ran says nothing on stderr
				}
				tb.Check(t, "probe "+what, text)
				for _, sig := range signatures {
					if strings.Contains(text, sig) {
						t.Errorf("probe %s shows the signature of a token it sent", what)
					}
				}
			}
			if stdout+stderr == "" {
				t.Fatal("probe wrote nothing")
			}
			if strings.Contains(c.name, "down") && !strings.Contains(stdout+stderr, "api_key="+model.Redacted) {
				t.Errorf("the transport error's URL is not shown redacted:\n%s\n%s", stdout, stderr)
			}
		})
	}
}

func mustShow(t *testing.T, output, text string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q (redacted too much, or wrote too little)", output, w)
		}
	}
}
