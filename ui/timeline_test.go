package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// TestTimelineKeepsTheWireOrderAtOneInstant: the last progress and the
// result a tap read at the same instant are listed as the server sent
// them, progress first.
func TestTimelineKeepsTheWireOrderAtOneInstant(t *testing.T) {
	store := model.NewStore(model.Options{})
	for _, ev := range []model.Event{
		{Time: at(0), Kind: model.KindToolCall},
		{Time: at(500), Kind: model.KindToolProgress, Progress: 1, Total: fptr(2)},
		{Time: at(900), Kind: model.KindToolProgress, Progress: 2, Total: fptr(2)},
		{Time: at(900), Kind: model.KindToolResult, TextChars: 4},
	} {
		ev.Source, ev.SourceName, ev.Tool, ev.Exchange, ev.RequestID = model.SourceTap, "tap:plain", "count", "1", "1"
		store.Apply(ev)
	}
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 120, Height: 60})
	send(m, keyMsgs("<enter>")...)
	detail := ansi.Strip(m.View())
	_, timeline, _ := strings.Cut(detail, "TIMELINE")
	progress, result := strings.Index(timeline, "2/2"), strings.Index(timeline, "tool.result")
	if progress < 0 || result < 0 || progress > result {
		t.Errorf("the last progress is not before the result:\n%s", detail)
	}
}

// TestDetailSaysEachSourceOnce: a tap whose name says its kind is said by
// its name alone, the same in ATTEMPTS and in the timeline, its progress
// included; a feed's name comes after its kind.
func TestDetailSaysEachSourceOnce(t *testing.T) {
	store := model.NewStore(model.Options{})
	for _, ev := range []model.Event{
		{Time: at(0), Kind: model.KindToolCall},
		{Time: at(500), Kind: model.KindToolProgress, Progress: 1, Total: fptr(2)},
		{Time: at(900), Kind: model.KindToolResult, TextChars: 4},
	} {
		ev.Source, ev.SourceName, ev.Tool, ev.Exchange, ev.RequestID = model.SourceTap, "tap:soat-orders", "count", "5", "1"
		store.Apply(ev)
	}
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 120, Height: 60})
	send(m, keyMsgs("<enter>")...)
	detail := ansi.Strip(m.View())
	_, attempts, _ := strings.Cut(detail, "ATTEMPTS")
	_, timeline, _ := strings.Cut(detail, "TIMELINE")
	if strings.Contains(detail, "tap tap") || !strings.Contains(attempts, "#1 · tap:soat-orders exchange 5") {
		t.Errorf("the attempt's source:\n%s", detail)
	}
	for _, kind := range []string{"tool.call", "tool.progress", "tool.result"} {
		if !strings.Contains(timeline, "tap:soat-orders  "+kind) {
			t.Errorf("the timeline's %s does not say tap:soat-orders:\n%s", kind, timeline)
		}
	}
	for _, c := range [][3]string{{"tap", "tap", "tap"}, {"tap", "tap2", "tap2"}, {"tap", "", "tap"}, {"feed", "orders", "feed orders"},
		{"feed", "feedback", "feed feedback"}, {"tap", "tap:a\x1b[2J", "tap:a␛[2J"}} {
		if got := sourceText(c[0], c[1]); got != c[2] {
			t.Errorf("sourceText(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
