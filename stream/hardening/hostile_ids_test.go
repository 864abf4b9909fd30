package hardening_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// TestHostileIdentifiers puts the corpus in the identifiers toolscope cuts
// and joins on: task id, tool call id, idempotency key, JSON-RPC id and
// progress token on a tap; tool call id on a feed. Every call is recorded
// and joined, and ids cut short for the table stay inert.
func TestHostileIdentifiers(t *testing.T) {
	cases := append(loadCorpus(t, "terminal_escapes.txt"), loadCorpus(t, "invalid_utf8.txt")...)
	up := &upstream{Progress: 1}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	store := model.NewStore(model.Options{})
	hub := output.NewHub(store)
	tp := startTap(t, "ids-tap", upSrv.URL, hub)
	client := newClient()
	for i, c := range cases {
		p := rawJSONString(c.Text)
		task := rawJSONString("T" + c.Text)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"ids","arguments":{},"_meta":{"progressToken":%s,"agentarea/task_id":%s,"agentarea/tool_call_id":%s,"agentarea/idempotency_key":%s}}}`,
			rawJSONString(fmt.Sprint(i)+c.Text), p, task, rawJSONString("C"+c.Text), p)
		res, err := client.Post("http://"+tp.Addr(), "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	shutdownTap(t, tp, client)

	log := newFeedLog()
	feedSrv := httptest.NewServer(log)
	defer feedSrv.Close()
	for _, c := range cases {
		id := rawJSONString("F" + c.Text)
		log.publishRaw("tool.call", `"tool.call"`, `{"task_id":"`+testTask+`","tool_name":"mcp__h__ids","tool_call_id":`+id+`}`)
		log.publishRaw("tool.result", `"tool.result"`, `{"task_id":"`+testTask+`","tool_name":"mcp__h__ids","tool_call_id":`+id+`,"success":true,"result":"ok"}`)
	}
	log.publish("task.completed", map[string]any{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := feed.Run(ctx, feedConfig(feedSrv.URL, "ids-feed"), hub); err != nil {
		t.Fatalf("feed: %v", err)
	}

	// Ids that are not UTF-8 decode to U+FFFD, so some cases name the same
	// call once decoded (same ids, or same idempotency key: a retry). Count
	// the calls the decoded ids make.
	parent := map[string]string{}
	var root func(string) string
	root = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			return root(p)
		}
		parent[x] = x
		return x
	}
	feedIDs := map[string]bool{}
	for _, c := range cases {
		var task, call, idem string
		json.Unmarshal([]byte(rawJSONString("T"+c.Text)), &task)
		json.Unmarshal([]byte(rawJSONString("C"+c.Text)), &call)
		json.Unmarshal([]byte(rawJSONString(c.Text)), &idem)
		parent[root("ids:"+task+"/"+call)] = root("idem:" + idem)
		feedIDs[c.Text] = true
	}
	tapIDs := map[string]bool{}
	for k := range parent {
		tapIDs[root(k)] = true
	}
	snap := store.Snapshot()
	var tapCalls, feedCalls int
	var unmatched []string
	for _, c := range snap.Calls {
		if !c.Finished() || c.Status != model.StatusOK {
			t.Errorf("%q: %s", c.ID, describe(c))
			continue
		}
		if c.SeenByFeed {
			feedCalls++
			continue
		}
		tapCalls++
		// Ids that decode to the same value (invalid bytes all become
		// U+FFFD) are one call with several attempts: one notification each.
		if c.Progress.Sent != len(c.Attempts) {
			unmatched = append(unmatched, fmt.Sprintf("%q", c.ID))
		}
	}
	if tapCalls != len(tapIDs) || feedCalls < len(tapIDs) || feedCalls > len(feedIDs) {
		t.Errorf("%d tap calls and %d feed calls finished ok, want %d and %d..%d (of %d calls)", tapCalls, feedCalls, len(tapIDs), len(tapIDs), len(feedIDs), len(snap.Calls))
	}
	t.Run("progress matched to its call", func(t *testing.T) {
		if len(unmatched) > 0 {
			t.Errorf("%d calls got no progress: %s", len(unmatched), strings.Join(unmatched, ", "))
		}
	})
	frames := map[string]string{
		"narrow": renderSized(store, ui.Options{}, 50, 100),
		"log":    renderSized(store, ui.Options{}, 160, 400, runeKey('l')),
	}
	for _, c := range snap.Calls {
		frames["detail "+c.ID] = renderSized(store, ui.Options{OpenCall: c.ID}, 120, 400)
	}
	for name, v := range frames {
		if p := inertProblem(v); p != "" {
			t.Errorf("%q frame: %s", name, p)
		}
	}
	for _, e := range allEvents(snap) {
		if p := inertProblem(model.TextLine(e)); p != "" {
			t.Errorf("TextLine of %s %q: %s", e.Kind, e.ToolCallID, p)
		}
	}

	// The table's TASK column shows the first 8 bytes of the sanitized task
	// id, which can end inside a character (any non-ASCII id, a ␛ shown for
	// an ESC): a broken UTF-8 sequence reaches the terminal.
	t.Run("table task column", func(t *testing.T) {
		for name, v := range map[string]string{
			"table":  renderSized(store, ui.Options{}, 160, 200),
			"filter": renderSized(store, ui.Options{}, 160, 100, runeKey('/'), tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("task:T")}),
		} {
			if p := inertProblem(v); p != "" {
				t.Errorf("%s frame: %s", name, p)
			}
		}
	})
}
