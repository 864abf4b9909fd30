package ui

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// detailStore holds one call whose arguments are args.
func detailStore(args string) *model.Store {
	s := model.NewStore(model.Options{})
	s.Apply(model.Event{Time: at(0), Source: model.SourceTap, SourceName: "local:7070", Kind: model.KindToolCall,
		TaskID: taskA, ToolCallID: "call_deep", Tool: "deep", Exchange: "e1", TimeoutMS: 300000,
		Arguments: json.RawMessage(args)})
	return s
}

// wideJSON is an object of n small records (about 60 bytes each).
func wideJSON(n int) string {
	var b strings.Builder
	b.WriteString(`{"rows":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"row ` + strconv.Itoa(i) + `","tags":["a","b"]}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// benchDetailOpen measures opening the detail of a call with args: the
// first build of the view, the cost a user pays on enter.
func benchDetailOpen(b *testing.B, args string) {
	store := detailStore(args)
	c := store.Snapshot().FindCall("call_deep")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m := newModel(store, Options{Now: fixedClock})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m.openDetail(c)
		_ = m.View()
	}
}

func BenchmarkDetailDeep2000(b *testing.B) { benchDetailOpen(b, nested(2000)) }
func BenchmarkDetailDeep9000(b *testing.B) { benchDetailOpen(b, nested(9000)) }
func BenchmarkDetailWide32K(b *testing.B)  { benchDetailOpen(b, wideJSON(500)) }
func BenchmarkDetailWide1M(b *testing.B)   { benchDetailOpen(b, wideJSON(16000)) }

// BenchmarkDetailTick: the detail stays open on a call with deep arguments
// while the clock moves; each op is one second's frame (tick + View).
func BenchmarkDetailTick(b *testing.B) {
	store := detailStore(nested(2000))
	now := fixedNow
	m := newModel(store, Options{Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.openDetail(store.Snapshot().FindCall("call_deep"))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		now = now.Add(time.Second)
		m.Update(frameMsg{})
		_ = m.View()
	}
}

// nested is JSON nested n arrays deep.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
