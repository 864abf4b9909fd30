package ui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"toolscope/model"
)

func send(m *Model, msgs ...tea.Msg) tea.Cmd {
	var last tea.Cmd
	for _, msg := range msgs {
		_, last = m.Update(msg)
	}
	return last
}

func sized(store *model.Store, opts Options) *Model {
	m := newModel(store, opts)
	send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}

func newCallEvent(id string) model.Event {
	return model.Event{Time: at(60000), Source: model.SourceFeed, SourceName: "task-6f1c", Kind: model.KindToolCall,
		TaskID: taskA, ToolCallID: id, Tool: "mcp__x__" + id}
}

func TestFollowAndMove(t *testing.T) {
	store := fixtureStore()
	m := sized(store, testOptions(nil))
	if m.selected().ToolCallID != "call_esc" {
		t.Fatalf("following: selected %q, want the newest call", m.selected().ID)
	}
	store.Apply(newCallEvent("call_new1"))
	send(m, frameMsg{})
	if m.selected().ToolCallID != "call_new1" {
		t.Fatalf("following: a new call must be selected, got %q", m.selected().ID)
	}
	send(m, keyMsgs("k")...)
	if m.table.follow || m.selected().ToolCallID != "call_esc" {
		t.Fatalf("k: follow=%v selected %q", m.table.follow, m.selected().ID)
	}
	store.Apply(newCallEvent("call_new2"))
	send(m, frameMsg{})
	if m.selected().ToolCallID != "call_esc" {
		t.Fatalf("moved: selection must stay on its call, got %q", m.selected().ID)
	}
	send(m, keyMsgs("G")...)
	if !m.table.follow || m.selected().ToolCallID != "call_new2" {
		t.Fatalf("G: follow=%v selected %q", m.table.follow, m.selected().ID)
	}
	send(m, tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	if m.table.follow || m.table.cursor != len(m.table.rows)-4 {
		t.Fatalf("wheel up: follow=%v cursor %d of %d", m.table.follow, m.table.cursor, len(m.table.rows))
	}
	send(m, tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonLeft, Y: tableTop + 1})
	if m.selected().ToolCallID != "call_def" {
		t.Fatalf("click on the second row selected %q", m.selected().ID)
	}
}

func TestVirtualisedRows(t *testing.T) {
	store := model.NewStore(model.Options{})
	for i := 0; i < 5000; i++ {
		e := newCallEvent("c0000" + string(rune('a'+i%26)) + itoa(i))
		store.Apply(e)
	}
	m := sized(store, testOptions(nil))
	view := m.View()
	checkFrame(t, view, 120, 40)
	// 40 lines: the title, the sources, the column titles, the status
	// line and the footer leave 35 for rows.
	if m.tableRows() != 35 || strings.Count(view, "c0000") != 35+1 { // +1: the status line names the selected call
		t.Fatalf("want 35 rendered rows, got %d (%d fit)", strings.Count(view, "c0000"), m.tableRows())
	}
	send(m, keyMsgs("g")...)
	if !strings.Contains(m.View(), "c0000a0 ") {
		t.Fatal("g: the first call is not shown")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestPauseKeepsTheFrame(t *testing.T) {
	store := fixtureStore()
	m := sized(store, testOptions(nil))
	send(m, keyMsgs("p")...)
	for i := 0; i < 7; i++ {
		store.Apply(newCallEvent("paused" + itoa(i)))
	}
	send(m, frameMsg{})
	view := m.View()
	if !strings.Contains(view, "PAUSED · 7 waiting") || !strings.Contains(view, "10 calls") || strings.Contains(view, "paused0") {
		t.Fatalf("paused frame wrong:\n%s", view)
	}
	send(m, keyMsgs("p")...)
	view = m.View()
	if strings.Contains(view, "PAUSED") || !strings.Contains(view, "17 calls") || !strings.Contains(view, "paused6") {
		t.Fatalf("resumed frame wrong:\n%s", view)
	}
}

func TestOpenCallWhenItArrives(t *testing.T) {
	store := model.NewStore(model.Options{})
	m := sized(store, Options{OpenCall: "late_one", Now: fixedClock})
	if m.mode != modeTable {
		t.Fatal("detail opened before the call exists")
	}
	store.Apply(newCallEvent("late_one"))
	send(m, frameMsg{})
	if m.mode != modeDetail || m.detail.call == nil || m.detail.call.ToolCallID != "late_one" {
		t.Fatal("detail not opened once the call arrived")
	}
	send(m, keyMsgs("<esc>")...)
	if m.mode != modeTable || m.selected().ToolCallID != "late_one" {
		t.Fatal("esc: back to the table on the same call")
	}
}

func TestFilter(t *testing.T) {
	store := fixtureStore()
	cases := []struct {
		query string
		want  []string // tool_call_ids, in order
	}{
		{"status:ok", []string{"call_abc", "call_stu", "call_vwx", "", "call_esc"}},
		{"status:error,late", []string{"call_jkl", "call_pqr"}},
		{"-status:ok -status:running", []string{"call_jkl", "call_mno", "call_pqr"}},
		{"tool:charge", []string{"call_stu"}},
		{"tool:CRAWL task:6f1c", []string{"call_ghi"}},
		{"source:tap flag:valid status:running", []string{"call_def"}},
		{"source:task-9d4a", nil},
		{"flag:attempt", []string{"call_stu"}},
		{"flag:replayed", []string{"call_stu"}},
		{"flag:rejected", []string{"call_jkl"}},
		{"flag:img flag:dropped flag:offloaded flag:limit", []string{"call_vwx"}},
		{"flag:pii", []string{""}},
		{"flag:unverified", []string{""}},
		{"flag:sc", []string{"call_abc", "call_vwx", "call_esc"}},
		{"sheet", []string{"call_abc", "call_def"}},
		{"tool:", []string{"call_abc", "call_def", "call_ghi", "call_jkl", "call_mno", "call_pqr", "call_stu", "call_vwx", "", "call_esc"}},
	}
	for _, c := range cases {
		m := sized(store, testOptions(nil))
		send(m, keyMsgs("/", c.query, "<enter>")...)
		var got []string
		for _, r := range m.table.rows {
			got = append(got, r.ToolCallID)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%q: got %q, want %q", c.query, got, c.want)
		}
		send(m, keyMsgs("<esc>")...)
		if len(m.table.rows) != 10 {
			t.Errorf("%q: esc must clear the filter, %d rows", c.query, len(m.table.rows))
		}
	}
}

func TestCopyIsRedactedJSON(t *testing.T) {
	for _, id := range []string{"call_abc", "call_esc"} {
		var clip bytes.Buffer
		opts := testOptions(&clip)
		opts.OpenCall = id
		m := sized(fixtureStore(), opts)
		cmd := send(m, keyMsgs("y")...)
		if cmd == nil {
			t.Fatal("y returned no command")
		}
		send(m, cmd())
		raw := clip.String()
		if !strings.HasPrefix(raw, "\x1b]52;c;") || !strings.HasSuffix(raw, "\a") {
			t.Fatalf("not an OSC 52 sequence: %q", raw)
		}
		payload, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(raw, "\x1b]52;c;"), "\a"))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(payload, &doc); err != nil {
			t.Fatalf("clipboard is not JSON: %v", err)
		}
		if doc["tool_call_id"] != id {
			t.Fatalf("copied %v, want %s", doc["tool_call_id"], id)
		}
		for _, b := range payload {
			if b < 0x20 && b != '\n' {
				t.Fatalf("raw control byte %#x in the copied JSON", b)
			}
		}
		if strings.Contains(string(payload), "sk-live-secret") {
			t.Fatal("credential in the copied JSON")
		}
		if id == "call_abc" && !strings.Contains(string(payload), `"Authorization": "Bearer [redacted]"`) {
			t.Fatal("Authorization header not shown redacted")
		}
		if id == "call_esc" && !strings.Contains(string(payload), `\u001b]52;c;ZXZpbA==\u0007`) {
			t.Fatal("escape sequence not kept as an inert JSON escape")
		}
		// It says what it did (a terminal may drop OSC 52 without a word),
		// not that the clipboard holds the copy.
		if v := m.View(); !strings.Contains(v, "clipboard: sent (OSC 52), unconfirmed") || strings.Contains(v, "copied to") {
			t.Fatalf("the copy is not said as it is:\n%s", v)
		}
	}
}

func TestEscapeInertJSON(t *testing.T) {
	in := []byte(`{"a":"x` + "\u009b" + `31m` + "\u202e" + `y"}`)
	out := model.TerminalSafeJSON(in) // what the copy sends
	if string(out) != `{"a":"x\u009b31m\u202ey"}` {
		t.Fatalf("got %s", out)
	}
	var v map[string]string
	if err := json.Unmarshal(out, &v); err != nil || v["a"] != "x\u009b31m\u202ey" {
		t.Fatalf("escaped JSON does not decode back: %v %q", err, v["a"])
	}
}

// TestColourFollowsLipglossProfile: every colour goes through lipgloss's
// profile (which is ASCII under NO_COLOR), the progress bars included.
func TestColourFollowsLipglossProfile(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetColorProfile(termenv.TrueColor)
	m := sized(fixtureStore(), testOptions(nil))
	if !strings.Contains(m.View(), "\x1b[") {
		t.Fatal("no colour under a TrueColor profile")
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	m = sized(fixtureStore(), testOptions(nil))
	send(m, keyMsgs("g", "<enter>")...)
	if strings.Contains(m.View(), "\x1b") {
		t.Fatal("escape sequences under the ASCII (NO_COLOR) profile")
	}
	t.Setenv("NO_COLOR", "1")
	if p := termenv.NewOutput(&bytes.Buffer{}, termenv.WithTTY(true)).EnvColorProfile(); p != termenv.Ascii {
		t.Fatalf("NO_COLOR: profile %v", p)
	}
}

func TestRate(t *testing.T) {
	var r rateMeter
	for i := 0; i <= 8; i++ {
		r.sample(t0.Add(time.Duration(i)*250*time.Millisecond), int64(i*50))
	}
	if got := r.perSecond(); got != 200 {
		t.Fatalf("rate %v, want 200/s", got)
	}
}

func TestSessionClock(t *testing.T) {
	store := fixtureStore()
	m := sized(store, Options{SessionClock: true, Now: fixedClock})
	if !m.now.Equal(at(59000)) {
		t.Fatalf("session clock %v, want the newest event %v", m.now, at(59000))
	}
	e := newCallEvent("later")
	e.Time = at(61000)
	store.Apply(e)
	send(m, frameMsg{})
	if !m.now.Equal(at(61000)) {
		t.Fatalf("session clock %v after a new event, want %v", m.now, at(61000))
	}
}

func TestEventLog(t *testing.T) {
	store := fixtureStore()
	store.Apply(model.Event{Time: at(60000), Source: model.SourceFeed, SourceName: "task-6f1c", Kind: model.KindWarning,
		Code: "malformed_event", Message: "line 7: \x1b[2J not JSON"})
	m := sized(store, testOptions(nil))
	send(m, keyMsgs("l")...)
	view := m.View()
	for _, want := range []string{"event log", "malformed_event", `\x1b[2J not JSON`, "state=reconnecting", "⚠ 3"} {
		if !strings.Contains(view, want) {
			t.Errorf("event log lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "\x1b[2J") {
		t.Error("raw escape in the event log")
	}
	send(m, keyMsgs("<esc>")...)
	if m.mode != modeTable {
		t.Fatal("esc: back to the table")
	}
}

func TestReplaySourceTurnsOnSessionClock(t *testing.T) {
	store := fixtureStore()
	m := sized(store, testOptions(nil))
	if !m.now.Equal(fixedNow) {
		t.Fatal("wall clock expected before any replay source")
	}
	// The replay's own status carries wall time: it must not move the clock.
	store.Apply(model.Event{Time: at(900000), Source: model.SourceReplay, SourceName: "session.jsonl",
		Kind: model.KindSourceStatus, State: model.StateConnected})
	send(m, frameMsg{})
	if !m.now.Equal(at(59000)) {
		t.Fatalf("clock %v, want the session's newest recorded event %v", m.now, at(59000))
	}
}

func TestOpenCallUnderReplayClock(t *testing.T) {
	store := fixtureStore()
	store.Apply(model.Event{Time: time.Now(), Source: model.SourceReplay, SourceName: "session.jsonl",
		Kind: model.KindSourceStatus, State: model.StateConnected})
	m := sized(store, Options{OpenCall: "call_abc", Now: time.Now})
	send(m, tea.WindowSizeMsg{Width: 120, Height: 200})
	if view := m.View(); !strings.Contains(view, "(59s ago, ") {
		t.Fatalf("claims not relative to the session's clock:\n%s", view)
	}
}

func TestRunesInOneMessage(t *testing.T) {
	m := sized(fixtureStore(), testOptions(nil))
	send(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("gjj")})
	if m.table.cursor != 2 || m.table.follow {
		t.Fatalf("\"gjj\" in one message: cursor %d follow %v, want 2 false", m.table.cursor, m.table.follow)
	}
}
