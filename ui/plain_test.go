package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// plainStore holds what a tap in front of a plain MCP server sees: calls
// without a token or agentarea/* keys, one with progress, one failed.
func plainStore() *model.Store {
	store := model.NewStore(model.Options{})
	tap := func(kind model.Kind, ms int, exchange, tool string, mutate func(*model.Event)) {
		ev := model.Event{Time: at(ms), Source: model.SourceTap, SourceName: "tap:plain", Kind: kind,
			Tool: tool, Exchange: exchange, RequestID: exchange}
		if kind == model.KindToolCall {
			ev.Context, ev.TimeoutMS = &model.Context{Verdict: model.VerdictAbsent}, 300000
		}
		if mutate != nil {
			mutate(&ev)
		}
		store.Apply(ev)
	}
	tap(model.KindToolCall, 0, "1", "count_rows", nil)
	for i := 1; i <= 12; i++ {
		tap(model.KindToolProgress, i*100, "1", "count_rows", func(e *model.Event) {
			e.Progress, e.Total, e.Message = float64(i), fptr(12), "row"
		})
	}
	tap(model.KindToolResult, 1300, "1", "count_rows", func(e *model.Event) { e.HTTPStatus, e.TextChars = 200, 9 })
	tap(model.KindToolCall, 1400, "2", "delete_everything", nil)
	tap(model.KindToolResult, 1401, "2", "delete_everything", func(e *model.Event) {
		e.HTTPStatus, e.IsError, e.TextPreview = 200, true, "refused: not allowed"
	})
	tap(model.KindToolCall, 1500, "3", "trigger-long-running-operation", nil)
	tap(model.KindToolResult, 1600, "3", "trigger-long-running-operation", func(e *model.Event) { e.HTTPStatus = 200 })
	return store
}

// TestPlainMCPLooksPlain: a tap that only ever carried plain MCP says so in
// the header; its rows say no "no token" and have no sent→relayed column,
// their room going to the progress; the detail has no relay and no token
// verdict. At 160, 120 and 80 columns.
func TestPlainMCPLooksPlain(t *testing.T) {
	for _, width := range []int{160, 120, 80} {
		m := newModel(plainStore(), testOptions(nil))
		send(m, tea.WindowSizeMsg{Width: width, Height: 24})
		screen := ansi.Strip(m.View())
		for _, no := range []string{"no token", "S→R", "SENT→REL", "12→0", "relayed", "TASK", "FLAGS"} {
			if strings.Contains(screen, no) {
				t.Errorf("%d columns: %q on screen:\n%s", width, no, screen)
			}
		}
		want := []string{"plain MCP", "12/12", "refused: not allowed"}
		if width >= 120 { // room to spare: a long tool name is whole
			want = append(want, "trigger-long-running-operation ")
		}
		for _, want := range want {
			if !strings.Contains(screen, want) {
				t.Errorf("%d columns: %q not on screen:\n%s", width, want, screen)
			}
		}
		send(m, keyMsgs("g", "<enter>")...) // count_rows, the first
		detail := ansi.Strip(m.View())
		for _, no := range []string{"relayed", "would relay", "dropped", "token absent"} {
			if strings.Contains(detail, no) {
				t.Errorf("%d columns: %q in the detail:\n%s", width, no, detail)
			}
		}
		if !strings.Contains(detail, "TOKEN  none: plain MCP") || !strings.Contains(detail, "PROGRESS  sent 12") {
			t.Errorf("%d columns: detail:\n%s", width, detail)
		}
	}
}

// TestNoTokenWhereTokensAreCarried: on a tap whose other calls carry a
// token, a call without one still says "no token".
func TestNoTokenWhereTokensAreCarried(t *testing.T) {
	store := plainStore()
	store.Apply(model.Event{Time: at(2000), Source: model.SourceTap, SourceName: "tap:plain", Kind: model.KindToolCall,
		Tool: "get_order", Exchange: "3", TaskID: taskA, ToolCallID: "call_x",
		Context: &model.Context{Present: true, Verdict: model.VerdictValid}})
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 160, Height: 24})
	screen := ansi.Strip(m.View())
	if !strings.Contains(screen, "no token") || !strings.Contains(screen, "AgentArea") || strings.Contains(screen, "plain MCP") {
		t.Errorf("screen:\n%s", screen)
	}
}
