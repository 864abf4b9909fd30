package tap

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"toolscope/model"
)

// TestPlainCallsLookPlain: through one tap, a plain MCP call's long answer
// is not held to AgentArea's limits and its tool.call has no context
// verdict; an AgentArea call's same answer is offloaded with its warning;
// once the tap has carried AgentArea context, a call without a token is
// missing one (context absent), while its answer, the call itself being
// plain, is not held to the platform's limits.
func TestPlainCallsLookPlain(t *testing.T) {
	long := strings.Repeat("x", model.MaxTextChars+1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		res, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": long}}})
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + string(res) + `}`))
	}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL})

	post(t, h.url, callBody(t, 1, "first_plain", map[string]any{}, nil), nil)
	plain := h.waitCall("first_plain")
	meta := contractMeta("task-1", "call-1", 1)
	token := mintToken(t, testSecret, "agentarea_call", meta, nil)
	post(t, h.url, callBody(t, 2, "agentarea_call", map[string]any{}, meta), map[string]string{model.ContextHeader: token})
	aa := h.waitCall("agentarea_call")
	post(t, h.url, callBody(t, 3, "later_plain", map[string]any{}, nil), nil)
	later := h.waitCall("later_plain")
	s := h.store.Snapshot()

	for _, c := range []*model.Call{plain, later} {
		if c.Flags&model.FlagOffloaded != 0 || c.LastAttempt().Result.TextChars != len(long) {
			t.Errorf("%s: flags %v, text %d: held to the platform's limits", c.Tool, c.FlagNames(), c.LastAttempt().Result.TextChars)
		}
	}
	if plain.Context != nil {
		t.Errorf("a plain call on a tap that never carried a token has context %+v", plain.Context)
	}
	if later.Context == nil || later.Context.Verdict != model.VerdictAbsent || !s.SpeaksAgentArea(later) {
		t.Errorf("a call without a token on a tap that carries them: context %+v, want absent", later.Context)
	}
	if aa.Flags&model.FlagOffloaded == 0 || aa.Context == nil || aa.Context.Verdict != model.VerdictUnverified {
		t.Errorf("the AgentArea call: flags %v, context %+v", aa.FlagNames(), aa.Context)
	}
	for _, e := range allEvents(s) {
		if e.Kind == model.KindWarning && e.Tool != "agentarea_call" {
			t.Errorf("warning on %s: %s %s", e.Tool, e.Code, e.Message)
		}
	}
	if !hasWarning(s, string(model.WarnTextOffloaded)) {
		t.Errorf("no text_offloaded on the AgentArea call\n%s", dump(s))
	}
}
