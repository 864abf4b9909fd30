package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

const probeTarget = "http://127.0.0.1:8080/mcp"

// probeRequest is a request as the probe records it: the credential and the
// token's signature already redacted.
const probeRequest = `POST http://127.0.0.1:8080/mcp
Accept: application/json, text/event-stream
Authorization: Bearer [redacted]
Content-Type: application/json
X-Agentarea-Context: eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJhdWQiOiI0ZTBmNmExYyIsImlzcyI6ImFnZW50YXJlYSJ9.[redacted]

{
  "jsonrpc": "2.0",
  "id": 5,
  "method": "tools/call",
  "params": {
    "name": "ping"
  }
}`

// probeFixture is a finished run: its plan, every case's result in order,
// and its end. alg_none's answer carries an OSC 52 clipboard write and its
// message a colour escape, as a hostile server could send them.
func probeFixture() (planned, finished []model.ProbeCase, end model.ProbeEnd) {
	finished = []model.ProbeCase{
		{ID: "valid", Title: "nothing wrong: a fresh token and the credential, the tool must run", Required: true,
			Expected: "200 result", Actual: "200 result", Pass: true, ToolRan: true, Message: "the tool ran",
			Request: probeRequest, Answer: "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\"content\": []}\n}", Duration: 41 * time.Millisecond},
		{ID: "credential_missing", Title: "the static credential header left out", Required: true,
			Expected: "401/-32001", Actual: "-", Pass: true, Skipped: true, Message: "skipped: no static credential configured"},
		{ID: "alg_none", Title: "alg: none, no signature", Required: true, Expected: "401/-32001", Actual: "200 result",
			ToolRan: true, Message: "the tool ran: \x1b[31mwant 401/-32001\x1b[0m", Request: probeRequest,
			Answer: "{\"result\":\"pwned\x1b]52;c;cHduZWQ=\x07\"}", Duration: 12 * time.Millisecond},
		{ID: "token_not_jwt", Title: "a header value that is not a JWT", Required: true, Expected: "400/-32602 or 401/-32001",
			Actual: "401/-32001", Pass: true, Message: "refused with 401/-32001 (the table allows either)", Request: probeRequest,
			Answer: `{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"unauthorized"}}`, Duration: 3 * time.Millisecond},
		{ID: "batch", Title: "the tools/call inside a JSON-RPC batch", Required: true, Expected: "400/-32600",
			Actual: "400/-32600", Message: "the error does not carry the tools/call's id", Request: probeRequest,
			Answer: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch"}}`, Duration: 2 * time.Millisecond},
		{ID: "idempotent_replay", Title: "the same idempotency key again", Expected: "200 result", Actual: "200 result",
			Pass: true, ToolRan: true, Message: "the same result back, not marked replayed", Request: probeRequest, Duration: 80 * time.Millisecond},
		{ID: "progress_relay", Title: "the valid call's progress under the 0.5 s relay rule", Expected: "200 result",
			Actual: "200 result", ToolRan: true, Message: "2 notifications 0.1 s apart: the platform relays one", Request: probeRequest},
	}
	for i := range finished {
		finished[i].Done = true
		c := finished[i]
		planned = append(planned, model.ProbeCase{ID: c.ID, Title: c.Title, Required: c.Required, Expected: c.Expected})
	}
	return planned, finished, model.ProbeEnd{Tool: "ping", ExitCode: 1, Duration: 1234 * time.Millisecond}
}

// probeFinished is the screen after the whole fixture run, at w x h.
func probeFinished(w, h int) *ProbeModel {
	planned, finished, end := probeFixture()
	m := NewProbe(ProbeOptions{Target: probeTarget, Cases: planned})
	probeSend(m, tea.WindowSizeMsg{Width: w, Height: h})
	for _, c := range finished {
		probeSend(m, ProbeCaseDone(c))
	}
	probeSend(m, ProbeEnded(end))
	return m
}

func probeSend(m *ProbeModel, msgs ...tea.Msg) {
	for _, msg := range msgs {
		m.Update(msg)
	}
}

// probeKeys turns a script into key messages: single runes, or <enter>,
// <esc>, <up>, <down>, <pgdown>.
func probeKeys(script ...string) []tea.Msg {
	named := map[string]tea.KeyType{"<enter>": tea.KeyEnter, "<esc>": tea.KeyEsc, "<up>": tea.KeyUp,
		"<down>": tea.KeyDown, "<pgdown>": tea.KeyPgDown}
	var out []tea.Msg
	for _, s := range script {
		if k, ok := named[s]; ok {
			out = append(out, tea.KeyMsg{Type: k})
			continue
		}
		for _, r := range s {
			out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
	}
	return out
}
