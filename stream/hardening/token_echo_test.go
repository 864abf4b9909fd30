package hardening_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"toolscope/model"
	"toolscope/output"
)

// TestProgressTokenEchoForms: servers echo a progressToken in their own
// JSON form (Python escapes non-ASCII, few encoders escape <, integers past
// 2^53 keep every digit). The same token written differently is the same
// token: its notifications must count for the call.
func TestProgressTokenEchoForms(t *testing.T) {
	cases := []struct{ name, sent, echoed string }{
		{"same text", `"tok-1"`, `"tok-1"`},
		{"html characters", `"job<1>&co"`, `"job<1>&co"`},
		{"non-ASCII escaped by the server", `"tâche-1"`, `"t\u00e2che-1"`},
		{"escaped slash", `"a/b"`, `"a\/b"`},
		{"large integer", `12345678901234567890`, `12345678901234567890`},
		{"exponent", `1e3`, `1000`},
	}
	echo := map[string]string{}
	up := &upstream{}
	up.Special = func(w http.ResponseWriter, r *http.Request, c callInfo) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":1,\"total\":1}}\n\n", echo[c.ToolCallID])
		fmt.Fprint(w, resultFrame(c, "ok"))
		return true
	}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	store := model.NewStore(model.Options{})
	tp := startTap(t, "token-tap", upSrv.URL, output.NewHub(store))
	client := newClient()
	for i, c := range cases {
		id := fmt.Sprintf("token-%d", i)
		echo[id] = c.echoed
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"work","arguments":{},"_meta":{"progressToken":%s,"agentarea/task_id":%q,"agentarea/tool_call_id":%q}}}`,
			i+1, c.sent, testTask, id)
		res, err := client.Post("http://"+tp.Addr(), "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	shutdownTap(t, tp, client)
	snap := store.Snapshot()
	var missed []string
	for i, c := range cases {
		k := findCall(snap, fmt.Sprintf("token-%d", i))
		if k == nil || k.Status != model.StatusOK {
			t.Errorf("%s: %s", c.name, describe(k))
			continue
		}
		if k.Progress.Sent != 1 {
			missed = append(missed, fmt.Sprintf("%s (%s echoed as %s)", c.name, c.sent, c.echoed))
		}
	}
	if strings.Contains(strings.Join(missed, ""), "same text") {
		t.Fatalf("even an identical token went unmatched: %v", missed)
	}
	if len(missed) > 0 {
		t.Errorf("progress not counted for: %s", strings.Join(missed, "; "))
	}
}

// TestRequestIDEchoForms: the same for the JSON-RPC id a result answers:
// an id the server writes in another JSON form is still the call's id.
func TestRequestIDEchoForms(t *testing.T) {
	cases := []struct{ name, sent, echoed string }{
		{"same text", `"req-1"`, `"req-1"`},
		{"non-ASCII escaped by the server", `"requête-2"`, `"requ\u00eate-2"`},
		{"escaped slash", `"req/3"`, `"req\/3"`},
	}
	echo := map[string]string{}
	up := &upstream{}
	up.Special = func(w http.ResponseWriter, r *http.Request, c callInfo) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n\n", echo[c.ToolCallID])
		return true
	}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	store := model.NewStore(model.Options{})
	tp := startTap(t, "id-tap", upSrv.URL, output.NewHub(store))
	client := newClient()
	for i, c := range cases {
		id := fmt.Sprintf("rid-%d", i)
		echo[id] = c.echoed
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"work","arguments":{},"_meta":{"agentarea/task_id":%q,"agentarea/tool_call_id":%q}}}`,
			c.sent, testTask, id)
		res, err := client.Post("http://"+tp.Addr(), "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	shutdownTap(t, tp, client)
	snap := store.Snapshot()
	var missed []string
	for i, c := range cases {
		k := findCall(snap, fmt.Sprintf("rid-%d", i))
		if k == nil || k.Status != model.StatusOK {
			missed = append(missed, fmt.Sprintf("%s (%s echoed as %s): %s", c.name, c.sent, c.echoed, describe(k)))
		}
	}
	if strings.Contains(strings.Join(missed, ""), "same text") {
		t.Fatalf("even an identical id went unmatched: %v", missed)
	}
	if len(missed) > 0 {
		t.Errorf("results not matched: %s", strings.Join(missed, "; "))
	}
}
