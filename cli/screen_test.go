package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"toolscope/ui"
)

// TestFailedFeedSaysWhyOnScreen: a feed answering 404 shows, where the calls
// would be, the status, the URL (its credential redacted) and what to check,
// and the command's error still says it after the screen is gone.
func TestFailedFeedSaysWhyOnScreen(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"detail":"Task not found"}`)
	}))
	defer srv.Close()
	url := srv.URL + "/v1/agents/a1/tasks/t404/events/stream?api_key=s3cret"

	live := liveFlags{feeds: multiFlag{url}, backfill: true, maxBackoff: time.Second, timeout: 300 * time.Second}
	p, err := newPipeline(outputFlags{}, "tui")
	if err != nil {
		t.Fatal(err)
	}
	src, code := live.build("watch", p.hub, nil)
	if src == nil {
		t.Fatalf("build: exit %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	failures := src.runFeeds(ctx, p.hub)
	p.close("watch")
	if len(failures) != 1 {
		t.Fatalf("failures = %v, want the one feed", failures)
	}
	said := sourcesFailed(failures, 1).Error()
	for _, want := range []string{"HTTP 404", srv.URL + "/v1/agents/a1/tasks/t404/events/stream", "no such task"} {
		if !strings.Contains(said, want) {
			t.Errorf("exit message %q lacks %q", said, want)
		}
	}

	tm := teatest.NewTestModel(t, ui.New(p.store, ui.Options{Title: "watch"}), teatest.WithInitialTermSize(100, 24))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	view := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View()
	words := strings.Join(strings.Fields(view), " ") // the reason wraps
	for _, want := range []string{"HTTP 404 Not Found", srv.URL + "/v1/agents/a1/tasks/t404/events/stream", "no such task: check the workspace, agent and task ids"} {
		if !strings.Contains(words, want) {
			t.Errorf("the main screen lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "s3cret") || strings.Contains(said, "s3cret") {
		t.Error("the feed's credential reached the screen or the message")
	}
	if strings.Contains(view, "waiting for tool calls") {
		t.Error("the screen still says it is waiting for calls")
	}
}
