package ui

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"toolscope/model"
)

func TestMain(m *testing.M) {
	// Goldens are plain text: no colour, whatever the terminal running the tests.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

func fixedClock() time.Time { return fixedNow }

func testOptions(clip io.Writer) Options {
	return Options{Title: "fixture", Now: fixedClock, Clipboard: clip}
}

// keys turns a script into key messages: single runes, or <name> for
// enter, esc, pgdown, up, down.
func keyMsgs(script ...string) []tea.Msg {
	var out []tea.Msg
	for _, s := range script {
		switch s {
		case "<enter>":
			out = append(out, tea.KeyMsg{Type: tea.KeyEnter})
		case "<esc>":
			out = append(out, tea.KeyMsg{Type: tea.KeyEsc})
		case "<pgdown>":
			out = append(out, tea.KeyMsg{Type: tea.KeyPgDown})
		case "<up>":
			out = append(out, tea.KeyMsg{Type: tea.KeyUp})
		case "<down>":
			out = append(out, tea.KeyMsg{Type: tea.KeyDown})
		default:
			for _, r := range s {
				out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		}
	}
	return out
}

// runScreen runs the real program under teatest, sends the script, quits
// and returns the final model and everything written to the terminal.
func runScreen(t *testing.T, store *model.Store, opts Options, w, h int, script ...string) (*Model, []byte) {
	t.Helper()
	tm := teatest.NewTestModel(t, newModel(store, opts), teatest.WithInitialTermSize(w, h))
	for _, msg := range keyMsgs(script...) {
		tm.Send(msg)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	out, err := io.ReadAll(tm.FinalOutput(t))
	if err != nil {
		t.Fatal(err)
	}
	return fm, out
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name   string
		empty  bool
		opts   func(*Options)
		script []string
	}{
		{name: "empty", empty: true},
		{name: "calls"},
		{name: "calls_moved", script: []string{"g", "j", "j", "j"}},
		{name: "detail", script: []string{"g", "<enter>"}},
		{name: "detail_rejected", opts: func(o *Options) { o.OpenCall = "call_jkl" }},
		{name: "detail_soat", opts: func(o *Options) { o.OpenCall = "local:7070#e9" }},
		{name: "detail_escape", opts: func(o *Options) { o.OpenCall = "call_esc" }},
		{name: "detail_images", opts: func(o *Options) { o.OpenCall = "call_vwx" }},
		{name: "detail_scrolled", script: []string{"g", "<enter>", "<pgdown>", "<pgdown>"}},
		{name: "filter_typing", script: []string{"/", "status:ok flag:sc"}},
		{name: "filter_applied", script: []string{"/", "tool:charge -status:error", "<enter>"}},
		{name: "filter_nothing", script: []string{"/", "status:late flag:img", "<enter>"}},
		{name: "help", script: []string{"?"}},
		{name: "paused", script: []string{"p"}},
		{name: "event_log", script: []string{"l"}},
		{name: "tasks", script: []string{"t"}},
		{name: "task_calls", script: []string{"t", "g", "<enter>"}},
	}
	sizes := [][2]int{{120, 40}, {80, 24}}
	for _, c := range cases {
		for _, sz := range sizes {
			t.Run(c.name+"_"+strconv.Itoa(sz[0])+"x"+strconv.Itoa(sz[1]), func(t *testing.T) {
				store := fixtureStore()
				if c.empty {
					store = model.NewStore(model.Options{})
				}
				opts := testOptions(&bytes.Buffer{})
				if c.opts != nil {
					c.opts(&opts)
				}
				fm, _ := runScreen(t, store, opts, sz[0], sz[1], c.script...)
				view := fm.View()
				checkFrame(t, view, sz[0], sz[1])
				teatest.RequireEqualOutput(t, []byte(view))
			})
		}
	}
}

// checkFrame asserts a frame fills the terminal exactly: height lines, none
// wider than the width.
func checkFrame(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := lipgloss.Width(l); n > w {
			t.Errorf("line %d is %d cells wide, over %d: %q", i, n, w, l)
		}
	}
}

// TestEscapeSequencesInert: a tool's output cannot drive the terminal; it
// is shown as inert symbols instead.
func TestEscapeSequencesInert(t *testing.T) {
	store := fixtureStore()
	opts := testOptions(&bytes.Buffer{})
	opts.OpenCall = "call_esc"
	// Tall enough that the whole detail, result preview included, is drawn.
	fm, out := runScreen(t, store, opts, 120, 200)
	view := fm.View()
	for _, raw := range []string{"\x1b]52;c;ZXZpbA==", "\x1b[2J", "\x1b[31mpage", "\a"} {
		if strings.Contains(string(out), raw) || strings.Contains(view, raw) {
			t.Errorf("raw %q reached the terminal", raw)
		}
	}
	for _, inert := range []string{"before ␛]52;c;ZXZpbA==␇ middle ␛[2J after", "fetch_␛[31mpage", "got ␛[2J half"} {
		if !strings.Contains(view, inert) {
			t.Errorf("inert form %q not shown", inert)
		}
	}
	// The table shows the tool name and progress message inert too.
	fm, out = runScreen(t, store, testOptions(&bytes.Buffer{}), 120, 40)
	if strings.Contains(string(out), "\x1b[2J half") || strings.Contains(string(out), "\x1b[31mpage") {
		t.Error("raw escape from a progress message or tool name reached the table")
	}
	if !strings.Contains(fm.View(), "fetch_␛[31mpage") {
		t.Error("tool name not shown inert in the table")
	}
}

func TestFrameFitsEverySize(t *testing.T) {
	for _, w := range []int{20, 40, 60, 80, 100, 120, 200} {
		for _, h := range []int{6, 10, 24, 40} {
			m := newModel(fixtureStore(), testOptions(nil))
			m.Update(tea.WindowSizeMsg{Width: w, Height: h})
			checkFrame(t, m.View(), w, h)
			m.Update(keyMsgs("g", "<enter>")[0])
			m.Update(keyMsgs("<enter>")[0])
			checkFrame(t, m.View(), w, h)
			m.Update(keyMsgs("?")[0])
			if h >= 10 {
				checkFrame(t, m.View(), w, h)
			}
		}
	}
}
