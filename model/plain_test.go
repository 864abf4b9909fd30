package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPlainMCPCall: a tap call without AgentArea context whose progress
// carries no relayed is plain MCP: no relay, no relayed count in its JSON,
// and its source speaks plain MCP until a call with a token comes.
func TestPlainMCPCall(t *testing.T) {
	s := NewStore(Options{})
	tap := func(kind Kind, ms int, exchange string) Event {
		return Event{Time: at(ms), Source: SourceTap, SourceName: "tap", Kind: kind, Tool: "count", Exchange: exchange}
	}
	call := tap(KindToolCall, 0, "1")
	call.Context = &Context{Verdict: VerdictAbsent}
	s.Apply(call)
	for i := 1; i <= 3; i++ {
		p := tap(KindToolProgress, i*10, "1")
		p.Progress, p.Total = float64(i), f64(3)
		s.Apply(p)
	}
	s.Apply(tap(KindToolResult, 50, "1"))
	snap := s.Snapshot()
	c := snap.Calls[0]
	if c.Relays || c.AgentArea() || c.Progress.Sent != 3 || c.Progress.WouldRelay != 0 {
		t.Errorf("relays %v agentarea %v sent %d would relay %d", c.Relays, c.AgentArea(), c.Progress.Sent, c.Progress.WouldRelay)
	}
	b, err := json.Marshal(snap.CallJSON(c, at(60)))
	if err != nil {
		t.Fatal(err)
	}
	// An older recording's "absent" is not shown: plain MCP has no token to miss.
	if strings.Contains(string(b), `"relayed"`) || strings.Contains(string(b), `"context"`) || !strings.Contains(string(b), `"sent":3`) {
		t.Errorf("call JSON: %s", b)
	}
	if src := snap.Sources[0]; src.AgentArea || src.Soat {
		t.Errorf("source %+v speaks more than plain MCP", src)
	}

	withToken := tap(KindToolCall, 100, "2")
	withToken.Context = &Context{Present: true, Verdict: VerdictValid}
	s.Apply(withToken)
	p := tap(KindToolProgress, 110, "2")
	p.Progress, p.Relayed = 1, BoolRef(true)
	s.Apply(p)
	snap = s.Snapshot()
	if c := snap.Calls[1]; !c.Relays || !c.AgentArea() || c.RelayedCount() != 1 {
		t.Errorf("the call with a token: relays %v agentarea %v relayed %d", c.Relays, c.AgentArea(), c.RelayedCount())
	}
	if !snap.Sources[0].AgentArea {
		t.Error("the source does not speak AgentArea after a call with a token")
	}
	// Now the source carries tokens: the first call misses one.
	if b, _ := json.Marshal(snap.CallJSON(snap.Calls[0], at(200))); !strings.Contains(string(b), `"verdict":"absent"`) {
		t.Errorf("the call without a token on a source that carries them: %s", b)
	}
}

// TestTextLinePlainMCP: a text line says a call's token verdict where
// AgentArea's contract applies, and no relayed on plain MCP progress.
func TestTextLinePlainMCP(t *testing.T) {
	call := Event{Time: at(0), Source: SourceTap, SourceName: "tap", Kind: KindToolCall, Tool: "count", Exchange: "1",
		Context: &Context{Verdict: VerdictAbsent}}
	if line := TextLine(call); strings.Contains(line, "context=") {
		t.Errorf("plain call: %s", line)
	}
	call.Meta = map[string]any{"agentarea/task_id": "T1"} // AgentArea's keys without its token
	if line := TextLine(call); !strings.Contains(line, "context=absent") {
		t.Errorf("a call with agentarea/* keys and no token: %s", line)
	}
	p := Event{Time: at(1), Source: SourceTap, SourceName: "tap", Kind: KindToolProgress, Tool: "count", Exchange: "1", Progress: 1}
	if line := TextLine(p); strings.Contains(line, "relayed") {
		t.Errorf("plain progress: %s", line)
	}
	p.Relayed = BoolRef(false)
	if line := TextLine(p); !strings.Contains(line, "relayed=false") {
		t.Errorf("progress the platform drops: %s", line)
	}
}

// TestRequiredTokenSpeaksAgentArea: a tap given a secret judges a call
// without a token rejected: AgentArea's contract applies to it, so its
// document keeps the verdict, though no call there ever carried a token.
func TestRequiredTokenSpeaksAgentArea(t *testing.T) {
	s := NewStore(Options{})
	s.Apply(Event{Time: at(0), Source: SourceTap, SourceName: "tap", Kind: KindToolCall, Tool: "count", Exchange: "1",
		Context: &Context{Verdict: VerdictRejected, HTTPStatus: 401}})
	snap := s.Snapshot()
	c := snap.Calls[0]
	if !snap.SpeaksAgentArea(c) {
		t.Error("a rejected call does not speak AgentArea")
	}
	if b, _ := json.Marshal(snap.CallJSON(c, at(10))); !strings.Contains(string(b), `"verdict":"rejected"`) {
		t.Errorf("call JSON: %s", b)
	}
}

// TestMissingTokenWhateverTheOrder: a tap call without a token on a
// source that carries tokens misses one, whether the tap judged it before
// its first call with a token (no context at all) or after (absent); on a
// source that never carried one, neither does.
func TestMissingTokenWhateverTheOrder(t *testing.T) {
	s := NewStore(Options{})
	tap := func(exchange string, ctx *Context) Event {
		return Event{Time: at(0), Source: SourceTap, SourceName: "tap", Kind: KindToolCall, Tool: "t" + exchange, Exchange: exchange, Context: ctx}
	}
	s.Apply(tap("1", nil))
	s.Apply(tap("2", &Context{Verdict: VerdictAbsent}))
	snap := s.Snapshot()
	for _, c := range snap.Calls {
		if snap.MissingToken(c) {
			t.Errorf("%s misses a token on a source that never carried one", c.Tool)
		}
	}
	s.Apply(tap("3", &Context{Present: true, Verdict: VerdictValid}))
	snap = s.Snapshot()
	for _, c := range snap.Calls {
		if want := c.Tool != "t3"; snap.MissingToken(c) != want {
			t.Errorf("%s: missing token %v, want %v", c.Tool, !want, want)
		}
	}
}
