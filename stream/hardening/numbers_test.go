package hardening_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
	"toolscope/output"
	"toolscope/ui"
)

// TestHostileNumbersAndSizes: progress values a careless or hostile server
// may send (huge, tiny, negative, over the total, a zero total) and a tool
// name of 1 MB go through a tap; every call is recorded and the table and
// detail frames keep to the terminal's width.
func TestHostileNumbersAndSizes(t *testing.T) {
	values := []struct{ progress, total string }{
		{"1e308", "1e308"}, {"1.7976931348623157e308", "1"}, {"-5", "10"}, {"5", "0"},
		{"3", "1e-300"}, {"12345678901234567890", "98765432109876543210"}, {"0.000000000000001", "3"}, {"7", "-1"},
	}
	up := &upstream{}
	up.Special = func(w http.ResponseWriter, r *http.Request, c callInfo) bool {
		var i int
		fmt.Sscanf(c.ToolCallID, "num-%d", &i)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		if i < len(values) {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":%s,\"total\":%s}}\n\n",
				c.Token, values[i].progress, values[i].total)
		}
		fmt.Fprint(w, resultFrame(c, "ok"))
		return true
	}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	store := model.NewStore(model.Options{})
	tp := startTap(t, "num-tap", upSrv.URL, output.NewHub(store))
	client := newClient()
	var all []callSpec
	for i := range values {
		all = append(all, callSpec{Task: testTask, ToolCallID: fmt.Sprintf("num-%d", i), Tool: "numbers", ID: i + 1})
	}
	all = append(all, callSpec{Task: testTask, ToolCallID: fmt.Sprintf("num-%d", len(values)), Tool: strings.Repeat("n", 1<<20), ID: 99})
	errs, _ := runCalls(t, client, "http://"+tp.Addr(), nil, all)
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	shutdownTap(t, tp, client)
	snap := store.Snapshot()
	for _, s := range all {
		if c := findCall(snap, s.ToolCallID); c == nil || c.Status != model.StatusOK {
			t.Errorf("%s: %s", s.ToolCallID, describe(c))
		}
	}
	const width = 120
	frames := map[string]string{"table": renderSized(store, ui.Options{}, width, 40)}
	for _, s := range all {
		frames[s.ToolCallID] = renderSized(store, ui.Options{OpenCall: testTask + "/" + s.ToolCallID}, width, 200)
	}
	for name, v := range frames {
		for n, line := range strings.Split(v, "\n") {
			if w := ansi.StringWidth(line); w > width {
				t.Errorf("%s frame, line %d is %d cells wide (terminal %d): %.80q…", name, n+1, w, width, line)
				break
			}
		}
		if p := inertProblem(v); p != "" {
			t.Errorf("%s frame: %s", name, p)
		}
	}
}
