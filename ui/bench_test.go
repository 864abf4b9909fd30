package ui

import (
	"strconv"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"toolscope/model"
)

// benchStore holds n calls: a tap call with a token and progress for each,
// most of them finished.
func benchStore(n int) *model.Store {
	s := model.NewStore(model.Options{MaxFinishedCalls: n + 1})
	for i := 0; i < n; i++ {
		id := "call_" + strconv.Itoa(i)
		exch := "e" + strconv.Itoa(i)
		ms := i * 10
		c := model.Event{Time: at(ms), Source: model.SourceTap, SourceName: "local:7070", Kind: model.KindToolCall,
			TaskID: taskA, ToolCallID: id, Tool: "export_sheet", Exchange: exch, TimeoutMS: 300000,
			Context: validContext("export_sheet", taskA, id)}
		s.Apply(c)
		for j := 1; j <= 3; j++ {
			p := c
			p.Kind, p.Time, p.Context = model.KindToolProgress, at(ms+j), nil
			p.Progress, p.Total, p.Message, p.Relayed = float64(j), fptr(10), "Reading sheet "+strconv.Itoa(j), model.BoolRef(j == 1)
			s.Apply(p)
		}
		if i%10 != 0 {
			r := c
			r.Kind, r.Time, r.Context, r.TextChars, r.TextPreview = model.KindToolResult, at(ms+5), nil, 100, "done"
			s.Apply(r)
		}
	}
	return s
}

func benchView(b *testing.B, n int) {
	m := newModel(benchStore(n), Options{Now: fixedClock})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = m.View()
	}
}

func BenchmarkView100(b *testing.B)   { benchView(b, 100) }
func BenchmarkView10000(b *testing.B) { benchView(b, 10000) }

// BenchmarkView10000TrueColor is the same frame with every colour on.
func BenchmarkView10000TrueColor(b *testing.B) {
	defer lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetColorProfile(termenv.TrueColor)
	benchView(b, 10000)
}

// BenchmarkFrame1000Events: 1,000 progress events arrive between two frames
// over a store of 10,000 calls; the frame (tick update + View) is measured.
func BenchmarkFrame1000Events(b *testing.B) {
	const calls = 10000
	store := benchStore(calls)
	m := newModel(store, Options{Now: fixedClock})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	ev := model.Event{Source: model.SourceTap, SourceName: "local:7070", Kind: model.KindToolProgress,
		TaskID: taskA, Tool: "export_sheet", Total: fptr(1e9)}
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := 0; j < 1000; j++ {
			k := (n * 7919) % calls
			ev.ToolCallID, ev.Exchange = "call_"+strconv.Itoa(k), "e"+strconv.Itoa(k)
			ev.Time, ev.Progress = at(n), float64(n)
			store.Apply(ev)
			n++
		}
		b.StartTimer()
		m.Update(frameMsg{})
		_ = m.View()
	}
}

// BenchmarkTaskView10000: the task view over 10,000 calls of 200 tasks,
// regrouped for a new snapshot and drawn (what a frame costs in that view).
func BenchmarkTaskView10000(b *testing.B) {
	s := model.NewStore(model.Options{MaxFinishedCalls: 10001})
	for i := range 10000 {
		task := "task-" + strconv.Itoa(i%200)
		s.Apply(model.Event{Time: at(i), Source: model.SourceFeed, SourceName: "feed:" + task, Kind: model.KindToolCall,
			TaskID: task, ToolCallID: "call_" + strconv.Itoa(i), Tool: "mcp__srv__export_sheet"})
	}
	m := newModel(s, Options{Now: fixedClock})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 45})
	m.Update(keyMsgs("t")[0])
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.tasks.build()
		_ = m.View()
	}
}
