package tap

import (
	"slices"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// TestServerLogBecomesWarnings: what net/http's server in the tap logs is a
// tap_server_error warning holding its first line (no stack trace reaches
// the screen), at most one a second, the rest counted in the next.
func TestServerLogBecomesWarnings(t *testing.T) {
	h := startTap(t, Config{Upstream: "http://127.0.0.1:1"})
	logger := h.tap.srv.ErrorLog
	if logger == nil {
		t.Fatal("the tap's server logs to stderr")
	}
	logger.Print("http: panic serving 127.0.0.1:5555: invalid concurrent Body.Read call\ngoroutine 7 [running]:\nnet/http.(*conn).serve.func1()")
	logger.Print("http: Accept error: too many open files; retrying in 5ms")
	h.tap.srv.ErrorLog.Writer().(*serverLog).last = time.Time{} // a second later
	logger.Print("http: Accept error: too many open files; retrying in 10ms")
	h.shutdown() // the warnings are emitted off the server's goroutine: wait for them
	var got []string
	for _, e := range allEvents(h.store.Snapshot()) {
		if e.Kind == model.KindWarning && e.Code == string(model.WarnTapServerError) {
			got = append(got, e.Message)
		}
	}
	want := []string{
		"tap test-tap: http: panic serving 127.0.0.1:5555: invalid concurrent Body.Read call",
		"tap test-tap: http: Accept error: too many open files; retrying in 10ms (and 1 more since the last)",
	}
	slices.Sort(got) // each on a goroutine of its own: in either order
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
