package ui

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"toolscope/model"
	"toolscope/model/modeltest"
)

// TestProbeGolden: a finished run, its detail and its help, through the real
// program at 100x30 and 80x24 (ASCII profile, see TestMain).
func TestProbeGolden(t *testing.T) {
	cases := []struct {
		name   string
		script []string
	}{
		{name: "finished"},
		{name: "moved", script: []string{"G", "k", "k"}},
		{name: "detail", script: []string{"j", "j", "<enter>"}},
		{name: "detail_scrolled", script: []string{"j", "j", "<enter>", "G"}},
		{name: "help", script: []string{"?"}},
	}
	for _, c := range cases {
		for _, sz := range [][2]int{{100, 30}, {80, 24}} {
			t.Run(c.name+"_"+strconv.Itoa(sz[0])+"x"+strconv.Itoa(sz[1]), func(t *testing.T) {
				planned, finished, end := probeFixture()
				tm := teatest.NewTestModel(t, NewProbe(ProbeOptions{Target: probeTarget, Cases: planned}),
					teatest.WithInitialTermSize(sz[0], sz[1]))
				for _, pc := range finished {
					tm.Send(ProbeCaseDone(pc))
				}
				tm.Send(ProbeEnded(end))
				for _, msg := range probeKeys(c.script...) {
					tm.Send(msg)
				}
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				view := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*ProbeModel).View()
				probeCheckFrame(t, view, sz[0], sz[1])
				teatest.RequireEqualOutput(t, []byte(view))
			})
		}
	}
}

// probeCheckFrame: a frame fills the terminal exactly, no line wider.
func probeCheckFrame(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := lipgloss.Width(l); n > w {
			t.Errorf("line %d is %d cells wide, want at most %d: %q", i, n, w, l)
		}
	}
}

// probeRowLine is the screen line of a case's row.
func probeRowLine(t *testing.T, view, id string) string {
	t.Helper()
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, "▌ "), id+" ") {
			return l
		}
	}
	t.Fatalf("no row for %s in\n%s", id, view)
	return ""
}

// TestProbeRowsFillInLive: rows start planned with the spinner on the
// first, and each finished case fills in its row and moves the spinner on;
// the end stops it and says the exit code.
func TestProbeRowsFillInLive(t *testing.T) {
	planned, finished, end := probeFixture()
	m := NewProbe(ProbeOptions{Target: probeTarget, Cases: planned})
	probeSend(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	v := m.View()
	if !strings.Contains(probeRowLine(t, v, "valid"), "running") || strings.Contains(probeRowLine(t, v, "alg_none"), "running") {
		t.Fatalf("before any result: want valid running, alg_none waiting\n%s", v)
	}
	probeSend(m, ProbeCaseDone(finished[0]), ProbeCaseDone(finished[1]), ProbeCaseDone(finished[2]))
	v = m.View()
	if l := probeRowLine(t, v, "valid"); !strings.Contains(l, "pass") || strings.Contains(l, "running") {
		t.Errorf("valid row after its result: %q", l)
	}
	if l := probeRowLine(t, v, "alg_none"); !strings.Contains(l, "200 result") || !strings.Contains(l, "FAIL") {
		t.Errorf("alg_none row after its result: %q", l)
	}
	if l := probeRowLine(t, v, "token_not_jwt"); !strings.Contains(l, "running") {
		t.Errorf("the next case is not shown running: %q", l)
	}
	if !strings.Contains(v, "probing 3 of 7") || !strings.Contains(v, "1 required case failed") || strings.Contains(v, "exit") {
		t.Errorf("summary while running:\n%s", v)
	}
	for _, c := range finished[3:] {
		probeSend(m, ProbeCaseDone(c))
	}
	probeSend(m, ProbeEnded(end))
	v = m.View()
	if strings.Contains(v, "running") || !strings.Contains(v, "✕ FAIL 2 required cases failed") || !strings.Contains(v, "exit 1") {
		t.Errorf("after the end:\n%s", v)
	}
	if _, cmd := m.Update(m.spin.Tick()); cmd != nil {
		t.Error("the spinner still ticks after the run ended")
	}

	// The same through the real program: a result arriving redraws its row.
	tm := teatest.NewTestModel(t, NewProbe(ProbeOptions{Target: probeTarget, Cases: planned}), teatest.WithInitialTermSize(100, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("probing 0 of 7")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(ProbeCaseDone(finished[0]))
	tm.Send(ProbeCaseDone(finished[1]))
	tm.Send(ProbeCaseDone(finished[2]))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("FAIL")) && bytes.Contains(b, []byte("probing 3 of 7"))
	}, teatest.WithDuration(5*time.Second))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*ProbeModel)
	if got := fm.Cases(); !got[2].Done || got[2].Pass || got[3].Done {
		t.Errorf("rows after three results: %+v", got[:4])
	}
}

// TestProbeDetail: enter opens the selected case with the request as the
// probe recorded it (credential and signature redacted) and the answer;
// esc goes back to the table.
func TestProbeDetail(t *testing.T) {
	m := probeFinished(100, 30)
	probeSend(m, probeKeys("j", "j", "<enter>")...)
	v := m.View()
	for _, want := range []string{"alg_none  FAIL", "200 result · the tool ran", "REQUEST SENT · credential and token signature redacted",
		"Authorization: Bearer [redacted]", "POST http://127.0.0.1:8080/mcp"} {
		if !strings.Contains(v, want) {
			t.Errorf("detail lacks %q:\n%s", want, v)
		}
	}
	probeSend(m, probeKeys("G")...)
	if v := m.View(); !strings.Contains(v, "ANSWER · the first 4 KiB") || !strings.Contains(v, ".[redacted]") {
		t.Errorf("the detail's end lacks the answer or the token's redacted signature:\n%s", v)
	}
	probeSend(m, probeKeys("<esc>")...)
	if v := m.View(); !strings.Contains(v, "CASE ") || !strings.Contains(probeRowLine(t, v, "alg_none"), "▌") {
		t.Errorf("esc: want the table with alg_none selected:\n%s", v)
	}
	// a case not run yet says so and shows no request
	planned, _, _ := probeFixture()
	m = NewProbe(ProbeOptions{Target: probeTarget, Cases: planned})
	probeSend(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	probeSend(m, probeKeys("j", "<enter>")...)
	if v := m.View(); !strings.Contains(v, "not run yet") || strings.Contains(v, "REQUEST SENT") {
		t.Errorf("detail of a case not run:\n%s", v)
	}
}

// TestProbeSanitises: escapes from the wire are shown as symbols, never
// sent to the terminal, with colour on.
func TestProbeSanitises(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetColorProfile(termenv.TrueColor)
	m := probeFinished(100, 30)
	probeSend(m, probeKeys("j", "j")...)
	table := m.View()
	probeSend(m, probeKeys("<enter>", "G")...)
	detail := m.View()
	for name, v := range map[string]string{"table": table, "detail": detail} {
		if strings.Contains(v, "\x1b]") || strings.Contains(v, "\x07") || strings.Contains(v, "\x1b[31m") {
			t.Errorf("%s sends a wire escape to the terminal: %q", name, v)
		}
	}
	if !strings.Contains(table, "␛[31mwant") || !strings.Contains(detail, "␛]52;c;cHduZWQ=␇") {
		t.Errorf("the escapes are not shown as symbols:\n%s\n%s", table, detail)
	}
}

// TestProbeColourFollowsProfile: colour under a colour profile, none under
// ASCII (what lipgloss picks under NO_COLOR or without a terminal).
func TestProbeColourFollowsProfile(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetColorProfile(termenv.TrueColor)
	if !strings.Contains(probeFinished(100, 30).View(), "\x1b[") {
		t.Fatal("no colour under a TrueColor profile")
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	for _, script := range [][]string{nil, {"?"}, {"<enter>"}} {
		m := probeFinished(100, 30)
		probeSend(m, probeKeys(script...)...)
		if v := m.View(); strings.Contains(v, "\x1b") {
			t.Fatalf("escape sequences under the ASCII profile (%v): %q", script, v)
		}
	}
}

// TestProbeKeys: j/k/arrows, g/G move the selection within the rows; ?
// toggles the help; q quits.
func TestProbeKeys(t *testing.T) {
	m := probeFinished(80, 24)
	steps := []struct {
		keys []string
		want int
	}{{[]string{"j", "j"}, 2}, {[]string{"<down>"}, 3}, {[]string{"k", "<up>"}, 1}, {[]string{"G"}, 6}, {[]string{"j"}, 6}, {[]string{"g"}, 0}, {[]string{"k"}, 0}}
	for _, s := range steps {
		probeSend(m, probeKeys(s.keys...)...)
		if m.cursor != s.want {
			t.Fatalf("after %v the selection is %d, want %d", s.keys, m.cursor, s.want)
		}
	}
	probeSend(m, probeKeys("?")...)
	if !strings.Contains(m.View(), "fail (info): an informative case failed") {
		t.Error("? does not show the help with the verdicts' legend")
	}
	if _, cmd := m.Update(probeKeys("q")[0]); cmd == nil || cmd() != tea.Quit() {
		t.Error("q does not quit")
	}
}

// syncBuffer is a terminal's output read while the program writes it.
type syncBuffer struct{ modeltest.LockedBuffer }

func (s *syncBuffer) waitFor(t *testing.T, text string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(s.String(), text) {
			return
		}
	}
	t.Fatalf("the screen never showed %q", text)
}

// TestRunProbe: the screen stays after the run until q; q during the run
// ends the work's context.
func TestRunProbe(t *testing.T) {
	planned, finished, end := probeFixture()
	run := func(work ProbeWork) (*syncBuffer, io.Writer, chan error) {
		in, keys := io.Pipe()
		out := &syncBuffer{}
		returned := make(chan error, 1)
		go func() {
			returned <- RunProbe(context.Background(), ProbeOptions{Target: probeTarget, Cases: planned, Input: in, Output: out}, work)
		}()
		t.Cleanup(func() { keys.Close() })
		return out, keys, returned
	}
	out, keys, returned := run(func(ctx context.Context, done func(model.ProbeCase)) model.ProbeEnd {
		for _, c := range finished {
			done(c)
		}
		return end
	})
	out.waitFor(t, "exit 1")
	select {
	case err := <-returned:
		t.Fatalf("the screen closed by itself when the run ended (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	_, _ = keys.Write([]byte("q"))
	select {
	case err := <-returned:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("q did not close the screen")
	}

	cancelled := make(chan struct{})
	out, keys, returned = run(func(ctx context.Context, done func(model.ProbeCase)) model.ProbeEnd {
		done(finished[0])
		<-ctx.Done()
		close(cancelled)
		return model.ProbeEnd{ExitCode: 1}
	})
	out.waitFor(t, "probing 1 of 7")
	_, _ = keys.Write([]byte("q"))
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("q during the run did not close the screen")
	}
	select {
	case <-cancelled:
	default:
		t.Fatal("RunProbe returned before the work saw its context end")
	}
}

// TestProbeMouse: the wheel moves the selection or scrolls the detail; a
// click selects the row under it.
func TestProbeMouse(t *testing.T) {
	m := probeFinished(80, 24)
	wheel := func(b tea.MouseButton) tea.Msg {
		return tea.MouseMsg{X: 5, Y: 5, Button: b, Action: tea.MouseActionPress}
	}
	probeSend(m, wheel(tea.MouseButtonWheelDown))
	if m.cursor != 3 {
		t.Fatalf("wheel down: selection %d, want 3", m.cursor)
	}
	probeSend(m, tea.MouseMsg{X: 5, Y: probeAbove + 5, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if m.cursor != 5 {
		t.Fatalf("click on the sixth row: selection %d, want 5", m.cursor)
	}
	probeSend(m, probeKeys("g", "j", "j", "<enter>")...)
	probeSend(m, wheel(tea.MouseButtonWheelDown))
	if m.viewport.YOffset != 3 {
		t.Fatalf("wheel in the detail: offset %d, want 3", m.viewport.YOffset)
	}
}

// TestProbeScrollsRows: with more cases than rows the selection stays on
// screen, and the frame still fills the terminal exactly.
func TestProbeScrollsRows(t *testing.T) {
	var planned []model.ProbeCase
	for i := range 26 {
		planned = append(planned, model.ProbeCase{ID: "case_" + strconv.Itoa(i), Required: true, Expected: "401/-32001"})
	}
	m := NewProbe(ProbeOptions{Target: probeTarget, Cases: planned})
	probeSend(m, tea.WindowSizeMsg{Width: 80, Height: 12})
	for _, step := range []struct {
		key, shown, hidden string
	}{{"G", "case_25 ", "case_0 "}, {"g", "case_0 ", "case_25 "}, {"<pgdown>", "case_7 ", "case_0 "}} {
		probeSend(m, probeKeys(step.key)...)
		v := m.View()
		probeCheckFrame(t, v, 80, 12)
		if !strings.Contains(probeRowLine(t, v, strings.TrimSpace(step.shown)), "▌") || strings.Contains(v, step.hidden) {
			t.Errorf("after %s: want %q selected on screen, %q off it:\n%s", step.key, step.shown, step.hidden, v)
		}
	}
}
