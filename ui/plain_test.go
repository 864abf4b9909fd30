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

// TestPlainResultHasNoPlatformLimits: the detail of a plain call's result
// holds it to no platform limit: no "(limit …)", no "within limits", no
// "offloaded"; an AgentArea call's does.
func TestPlainResultHasNoPlatformLimits(t *testing.T) {
	store := plainStore()
	for _, ev := range []model.Event{
		{Kind: model.KindToolCall, Context: &model.Context{Verdict: model.VerdictAbsent}},
		{Kind: model.KindToolResult, HTTPStatus: 200, TextChars: 9000, StructuredContentBytes: 20000, // past AgentArea's limits
			Images: []model.Image{{MimeType: "image/bmp", Size: model.MaxImageBytes + 1}}},
	} {
		ev.Time, ev.Source, ev.SourceName, ev.Tool, ev.Exchange, ev.RequestID = at(1700), model.SourceTap, "tap:plain", "render", "4", "4"
		store.Apply(ev)
	}
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 120, Height: 80})
	send(m, keyMsgs("G", "<enter>")...) // render, the last
	detail := ansi.Strip(m.View())
	for _, no := range []string{"(limit", "within limits", "at most 8", "offloaded", "over 5 MB"} {
		if strings.Contains(detail, no) {
			t.Errorf("%q in a plain call's detail:\n%s", no, detail)
		}
	}
	if !strings.Contains(detail, "9000 chars") || !strings.Contains(detail, "image/bmp") {
		t.Errorf("detail:\n%s", detail)
	}
}

// TestSummarisedHeaderSaysWhatTapsSpeak: when the taps' names do not fit,
// the header's summary says what they speak: one word when they all speak
// it, else each with its count.
func TestSummarisedHeaderSaysWhatTapsSpeak(t *testing.T) {
	for _, tc := range []struct {
		agentArea []bool
		want      string
	}{
		{[]bool{false, false, false}, "3 taps connected · plain MCP"},
		{[]bool{false, true, false}, "3 taps connected · 2 plain MCP, 1 AgentArea"},
	} {
		store := model.NewStore(model.Options{})
		for i, aa := range tc.agentArea {
			name := "tap:a-plain-mcp-server-with-a-long-name-" + string(rune('a'+i))
			store.Apply(model.Event{Time: at(0), Source: model.SourceTap, SourceName: name, Kind: model.KindSourceStatus, State: model.StateConnected})
			call := model.Event{Time: at(10), Source: model.SourceTap, SourceName: name, Kind: model.KindToolCall, Tool: "echo", Exchange: "1"}
			if aa {
				call.Context = &model.Context{Present: true, Verdict: model.VerdictUnverified}
			}
			store.Apply(call)
		}
		for _, width := range []int{80, 120} {
			m := newModel(store, testOptions(nil))
			send(m, tea.WindowSizeMsg{Width: width, Height: 24})
			if screen := ansi.Strip(m.View()); !strings.Contains(strings.Split(screen, "\n")[1], tc.want) {
				t.Errorf("%d columns: the header lacks %q:\n%s", width, tc.want, screen)
			}
		}
	}
}
