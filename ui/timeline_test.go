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
