package hardening_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
	"toolscope/output"
	"toolscope/stream/feed"
	"toolscope/ui"
)

// hostileCall is a tools/call body whose tool name, arguments and _meta
// carry the payload raw.
func hostileCall(id int, toolCallID, payload string) []byte {
	p := rawJSONString(payload)
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":{"p":%s,"list":[%s]},`+
		`"_meta":{"progressToken":"pt-%s","agentarea/protocol":"1","agentarea/task_id":%q,"agentarea/tool_call_id":%q,"agentarea/workspace_id":%s,"agentarea/idempotency_key":"%s:%s"}}}`,
		id, rawJSONString("t"+payload), p, p, toolCallID, testTask, toolCallID, p, testTask, toolCallID))
}

// hostileUpstream answers each call with a progress notification, a log
// message and a result that all carry the call's payload raw; odd calls
// answer isError.
func hostileUpstream(payloads map[string]string) *upstream {
	up := &upstream{}
	up.Special = func(w http.ResponseWriter, r *http.Request, c callInfo) bool {
		p := rawJSONString(payloads[c.ToolCallID])
		isError := strings.HasSuffix(c.ToolCallID, "1") || strings.HasSuffix(c.ToolCallID, "3")
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":1,\"total\":1,\"message\":%s}}\n\n", c.Token, p)
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"logger\":%s,\"data\":%s}}\n\n", p, p)
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%s}],\"structuredContent\":{\"p\":%s},\"isError\":%v}}\n\n", c.ID, p, p, isError)
		return true
	}
	return up
}

// publishHostile puts what the platform would relay of the call on the
// feed, the payload raw in every string.
func publishHostile(log *feedLog, toolCallID, payload string) {
	p := rawJSONString(payload)
	base := fmt.Sprintf(`"task_id":%q,"tool_name":%s,"tool_call_id":%q`, testTask, rawJSONString("mcp__h__"+payload), toolCallID)
	log.publishRaw("tool.call", `"tool.call"`, `{`+base+`,"iteration":1,"arguments":{"p":`+p+`}}`)
	log.publishRaw("tool.progress", `"tool.progress"`, `{`+base+`,"progress":1,"total":1,"message":`+p+`}`)
	log.publishRaw("tool.result", `"tool.result"`, `{`+base+`,"success":false,"error":`+p+`,"result":`+p+`}`)
	log.publishRaw("BudgetWarning", `"BudgetWarning"`, `{"task_id":"`+testTask+`","message":`+p+`}`)
	// An event type of the server's own naming, on the SSE event line too
	// (where a line break would end the line, so none is put there).
	name := "custom." + strings.NewReplacer("\r", "", "\n", "").Replace(payload)
	log.publishRaw(name, rawJSONString(name), `{"task_id":"`+testTask+`","tool_call_id":"`+toolCallID+`","message":`+p+`}`)
}

// TestHostileTextInert sends every terminal-escape and invalid-UTF-8 case of
// the corpus through a tap (tool name, arguments, _meta, progress message,
// log message, result text and structured content) and a feed (tool name,
// arguments, progress message, error, a pass-through event). Nothing is
// lost, and everything a terminal gets is inert: the headless text lines,
// the table, the event log, each call's detail, and the copy sequence.
func TestHostileTextInert(t *testing.T) {
	cases := append(loadCorpus(t, "terminal_escapes.txt"), loadCorpus(t, "invalid_utf8.txt")...)
	payloads := map[string]string{}
	for i, c := range cases {
		payloads[fmt.Sprintf("hostile-%02d", i)] = c.Text
	}
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store)
	up := hostileUpstream(payloads)
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	tp := startTap(t, "hostile-tap", upSrv.URL, hub)
	log := newFeedLog()
	feedSrv := httptest.NewServer(log)
	defer feedSrv.Close()

	client := newClient()
	defer client.CloseIdleConnections()
	for i, c := range cases {
		id := fmt.Sprintf("hostile-%02d", i)
		res, err := client.Post("http://"+tp.Addr(), "application/json", bytes.NewReader(hostileCall(i+1, id, c.Text)))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		publishHostile(log, id, c.Text)
	}
	log.publishRaw("task.completed", `"task.completed"`, `{"task_id":"`+testTask+`","message":`+rawJSONString(cases[0].Text)+`}`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := feed.Run(ctx, feedConfig(feedSrv.URL, "hostile\x1b]0;feed\x07"), hub); err != nil {
		t.Fatalf("feed: %v", err)
	}
	shutdownTap(t, tp, client)
	snap := store.Snapshot()

	// Nothing lost: every call, from both sources, with its progress and end.
	for i, c := range cases {
		id := fmt.Sprintf("hostile-%02d", i)
		k := findCall(snap, id)
		if k == nil || !k.Finished() || k.Progress.Sent != 1 || k.Progress.Relayed != 1 || !k.SeenByFeed || len(k.Attempts) != 1 {
			t.Errorf("%s: %s", c.Name, describe(k))
		}
	}

	custom := 0
	for _, e := range snap.Other {
		if e.Kind == model.KindEvent && strings.HasPrefix(e.EventType, "custom.") {
			custom++
		}
	}
	if custom != len(cases) {
		t.Errorf("%d pass-through events with hostile names kept, want %d", custom, len(cases))
	}

	// Headless text lines (--output text) and every stored event.
	for _, e := range allEvents(snap) {
		if p := inertProblem(model.TextLine(e)); p != "" {
			t.Errorf("TextLine of %s %s: %s", e.Kind, e.ToolCallID, p)
		}
	}
	// The screen: table, event log, each call's detail.
	frames := map[string]string{"table": render(store, ui.Options{}, nil)}
	frames["log"] = render(store, ui.Options{}, []tea.Msg{runeKey('l')})
	for i := range cases {
		id := fmt.Sprintf("%s/hostile-%02d", testTask, i)
		frames["detail "+cases[i].Name] = render(store, ui.Options{OpenCall: id}, nil)
	}
	for name, v := range frames {
		if p := inertProblem(v); p != "" {
			t.Errorf("%s frame: %s", name, p)
		}
	}
	if !strings.Contains(frames["detail osc52_clipboard"], "␛]52;c;") {
		t.Errorf("the detail does not show the OSC 52 attempt for what it is:\n%s", frames["detail osc52_clipboard"])
	}

	// `y` writes one OSC 52 sequence of base64 only: the payloads stay inside.
	var clip bytes.Buffer
	m := ui.New(store, ui.Options{Clipboard: &clip, OpenCall: testTask + "/hostile-00"})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	_, cmd := m.Update(runeKey('y'))
	for cmd != nil {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				if c != nil {
					c()
				}
			}
			break
		}
		_, cmd = m.Update(msg)
	}
	checkOSC52(t, clip.String())
}

// render makes a fresh screen over the store, sends it keys and returns one
// tall frame, so a detail's whole text is on it.
func render(store *model.Store, opts ui.Options, keys []tea.Msg) string {
	return renderSized(store, opts, 160, 3000, keys...)
}

// renderSized is render on a screen of the given size.
func renderSized(store *model.Store, opts ui.Options, width, height int, keys ...tea.Msg) string {
	m := ui.New(store, opts)
	m, _ = m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	for _, k := range keys {
		m, _ = m.Update(k)
	}
	return m.View()
}

// checkOSC52 asserts s is exactly one OSC 52 clipboard write of base64.
func checkOSC52(t *testing.T, s string) {
	t.Helper()
	const head = "\x1b]52;c;"
	if !strings.HasPrefix(s, head) {
		t.Fatalf("the copy did not start an OSC 52 sequence: %q", s[:min(len(s), 40)])
	}
	body := strings.TrimPrefix(s, head)
	switch {
	case strings.HasSuffix(body, "\x07"):
		body = strings.TrimSuffix(body, "\x07")
	case strings.HasSuffix(body, "\x1b\\"):
		body = strings.TrimSuffix(body, "\x1b\\")
	default:
		t.Fatalf("the OSC 52 sequence is not terminated: %q", s[max(0, len(s)-20):])
	}
	decoded, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		t.Fatalf("the OSC 52 payload is not plain base64 (%v): a payload escaped it", err)
	}
	if !bytes.Contains(decoded, []byte(`"hostile-00"`)) {
		t.Errorf("the copied JSON is not the call: %.200s", decoded)
	}
}

// TestInertProblemDetects proves the detector the hostile tests rely on.
func TestInertProblemDetects(t *testing.T) {
	for _, bad := range []string{"\x1b[2J", "\x9b2J", "\u009b2J", "a\x07", "\u202e", "\xff", "\r", "\x7f"} {
		if inertProblem(bad) == "" {
			t.Errorf("%q passed as inert", bad)
		}
	}
	for _, good := range []string{"plain", "␛]52;c;", "line\nline", "caf\u00e9 \u20ac \ufffd"} {
		if p := inertProblem(good); p != "" {
			t.Errorf("%q flagged: %s", good, p)
		}
	}
}

// TestHostileJSONLines: --output json and --record write hostile strings
// as JSON that reads back, and that a terminal shows inert (a user may run
// --output json on one).
func TestHostileJSONLines(t *testing.T) {
	cases := append(loadCorpus(t, "terminal_escapes.txt"), loadCorpus(t, "invalid_utf8.txt")...)
	var problems []string
	for _, c := range cases {
		ev := model.Event{Time: time.Now(), Source: model.SourceTap, SourceName: "t", Kind: model.KindToolCall,
			TaskID: testTask, ToolCallID: c.Name, Tool: c.Text, Arguments: []byte(`{"p":` + rawJSONString(c.Text) + `}`)}
		line := output.EncodeLine(&ev)
		if _, err := output.DecodeLine(line); err != nil {
			t.Errorf("%s: the JSON line does not read back: %v", c.Name, err)
		}
		if p := inertProblem(strings.TrimSuffix(string(line), "\n")); p != "" {
			problems = append(problems, c.Name+": "+p)
		}
	}
	if len(problems) > 0 {
		t.Errorf("JSON lines a terminal would not show inert:\n%s", strings.Join(problems, "\n"))
	}
}
