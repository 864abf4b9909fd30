package ui

import (
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// TestFeedOnlyTimeoutAndRejection: with a task feed alone (no tap), a call
// the platform timed out is cancelled with the platform's reason on its row,
// and one whose server rejected the credentials shows `rejected 401`.
func TestFeedOnlyTimeoutAndRejection(t *testing.T) {
	store := model.NewStore(model.Options{})
	feed := func(kind model.Kind, ms int, call string, mutate func(*model.Event)) {
		ev := model.Event{Time: at(ms), Source: model.SourceFeed, SourceName: "task-6f1c", Kind: kind,
			TaskID: taskA, ToolCallID: call, Tool: "mcp__demo__" + call}
		if mutate != nil {
			mutate(&ev)
		}
		store.Apply(ev)
	}
	const timeout = "MCP tool call timed out: no result within 5 s"
	feed(model.KindToolCall, 0, "export_ledger", nil)
	feed(model.KindToolProgress, 500, "export_ledger", func(e *model.Event) { e.Progress, e.Total, e.Message = 1800, fptr(135000), "Exported 1800 rows" })
	feed(model.KindToolResult, 5000, "export_ledger", func(e *model.Event) { e.IsError, e.Error, e.TimedOut = true, timeout, true })
	feed(model.KindToolCall, 100, "lookup_customer", nil)
	feed(model.KindToolResult, 200, "lookup_customer", func(e *model.Event) {
		e.IsError, e.Error, e.HTTPStatus = true, "MCP tool call failed: demo rejected the credentials (HTTP 401)", 401
	})

	s := store.Snapshot()
	for _, c := range s.Calls {
		want := map[string]model.Status{"export_ledger": model.StatusCancelled, "lookup_customer": model.StatusError}[c.ToolCallID]
		if c.Status != want {
			t.Errorf("%s: status %s, want %s", c.ToolCallID, c.Status, want)
		}
	}
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 220, Height: 40})
	screen := ansi.Strip(m.View())
	rows := map[string]string{}
	for _, line := range strings.Split(screen, "\n") {
		for _, tool := range []string{"export_ledger", "lookup_customer"} {
			if strings.Contains(line, tool) {
				rows[tool] = line
			}
		}
	}
	if r := rows["export_ledger"]; !strings.Contains(r, "⊘ MCP tool call timed out") || !strings.Contains(r, "cancelled") {
		t.Errorf("export_ledger row: %q", r)
	}
	if r := rows["lookup_customer"]; !strings.Contains(r, "rejected 401") {
		t.Errorf("lookup_customer row: %q", r)
	}
	send(m, keyMsgs("g", "<enter>")...) // the first row, export_ledger
	detail := ansi.Strip(m.View())
	if !regexp.MustCompile(`RESULT +cancelled`).MatchString(detail) || !regexp.MustCompile(`cancelled +`+timeout).MatchString(detail) ||
		!strings.Contains(detail, "#1 · feed · 10:00:00.000 · 5.0s · cancelled: "+timeout) {
		t.Errorf("export_ledger detail:\n%s", detail)
	}
}
