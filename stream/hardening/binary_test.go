package hardening_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

func openFull() (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }

// TestBinaryRecordDiskFull runs the real binary: a replay recorded onto a
// full disk exits 0, prints every event on stdout, and says on stderr what
// failed.
func TestBinaryRecordDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if f, err := openFull(); err != nil {
		t.Skipf("no /dev/full: %v", err)
	} else {
		f.Close()
	}
	bin := modeltest.Binary(t, "toolscope")
	session := modeltest.SessionFile()
	cmd := exec.Command(bin, "replay", session, "--speed", "0", "--output", "json", "--record", "/dev/full")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("toolscope replay --record /dev/full: %v\nstderr:\n%s", err, stderr.String())
	}
	msg := stderr.String()
	if !strings.Contains(msg, "/dev/full") || !strings.Contains(msg, "no space left on device") {
		t.Errorf("no clear error on stderr: %q", msg)
	}
	in := countLines(t, session)
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	out := 0
	for sc.Scan() {
		if _, err := output.DecodeLine(sc.Bytes()); err != nil {
			t.Errorf("stdout line %d: %v", out+1, err)
		}
		out++
	}
	if out < in {
		t.Errorf("stdout has %d events, the session %d: monitoring did not go on", out, in)
	}
	t.Logf("stderr: %q", msg)

	t.Run("error said once", func(t *testing.T) {
		if n := strings.Count(msg, "no space left on device"); n != 1 {
			t.Errorf("the error is printed %d times:\n%s", n, msg)
		}
	})
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// TestBinaryReplayHostileText: a recording whose events carry the hostile
// corpus, replayed by the real binary with --output text, prints every
// event, inert.
func TestBinaryReplayHostileText(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := modeltest.Binary(t, "toolscope")
	cases := append(loadCorpus(t, "terminal_escapes.txt"), loadCorpus(t, "invalid_utf8.txt")...)
	var rec bytes.Buffer
	at := time.Date(2026, 7, 29, 10, 0, 0, 0, time.UTC)
	for i, c := range cases {
		total := 1.0
		base := model.Event{Time: at.Add(time.Duration(i) * time.Second), Source: model.SourceTap, SourceName: "rec" + c.Text,
			TaskID: "T" + c.Text, ToolCallID: "C" + c.Text, Tool: c.Text}
		evs := []model.Event{base, base, base, base}
		evs[0].Kind, evs[0].Arguments = model.KindToolCall, []byte(`{"p":`+rawJSONString(c.Text)+`}`)
		evs[1].Kind, evs[1].Progress, evs[1].Total, evs[1].Message = model.KindToolProgress, 1, &total, c.Text
		evs[2].Kind, evs[2].Error, evs[2].TextPreview = model.KindToolResult, c.Text, c.Text
		evs[3].Kind, evs[3].Code, evs[3].Message = model.KindWarning, "w"+c.Text, c.Text
		for _, e := range evs {
			rec.Write(output.EncodeLine(&e))
		}
	}
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(path, rec.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "replay", path, "--speed", "0", "--output", "text")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) < 4*len(cases) {
		t.Errorf("%d lines printed for %d events", len(lines), 4*len(cases))
	}
	if p := inertProblem(stdout.String()); p != "" {
		t.Errorf("replay --output text: %s", p)
	}
	if p := inertProblem(stderr.String()); p != "" {
		t.Errorf("replay stderr: %s", p)
	}
}
