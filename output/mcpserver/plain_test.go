package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// TestListCallsPlainMCP: list_calls gives a plain MCP call no verdict and
// no relayed count; a call without a token on a tap that carries tokens
// keeps its verdict absent, and an AgentArea call its relayed count.
func TestListCallsPlainMCP(t *testing.T) {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	store := model.NewStore(model.Options{})
	call := func(source, exchange string, ctx *model.Context) {
		store.Apply(model.Event{Time: at, Source: model.SourceTap, SourceName: source, Kind: model.KindToolCall,
			Tool: "t" + exchange, Exchange: exchange, Context: ctx})
		p := model.Event{Time: at.Add(time.Millisecond), Source: model.SourceTap, SourceName: source, Kind: model.KindToolProgress,
			Tool: "t" + exchange, Exchange: exchange, Progress: 1}
		if ctx.Present {
			p.Relayed = model.BoolRef(true)
		}
		store.Apply(p)
	}
	call("plain", "1", &model.Context{Verdict: model.VerdictAbsent})
	call("platform", "2", &model.Context{Present: true, Verdict: model.VerdictValid})
	call("platform", "3", &model.Context{Verdict: model.VerdictAbsent})
	snap := store.Snapshot()
	rows := map[string]string{}
	for _, c := range snap.Calls {
		b, _ := json.Marshal(newCallRow(snap, c, at))
		rows[c.Tool] = string(b)
	}
	if r := rows["t1"]; strings.Contains(r, "verdict") || strings.Contains(r, "progress_relayed") || !strings.Contains(r, `"progress_sent":1`) {
		t.Errorf("plain call: %s", r)
	}
	if r := rows["t2"]; !strings.Contains(r, `"verdict":"valid"`) || !strings.Contains(r, `"progress_relayed":1`) {
		t.Errorf("AgentArea call: %s", r)
	}
	if r := rows["t3"]; !strings.Contains(r, `"verdict":"absent"`) {
		t.Errorf("a call without a token on a tap that carries tokens: %s", r)
	}
}
