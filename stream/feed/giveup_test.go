package feed

import (
	"net"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// TestGiveUpAfter: a feed whose host refuses every connection ends, once
// GiveUpAfter has passed, with an error naming the feed and the last error,
// and says so in a failed status; without GiveUpAfter it would retry forever.
func TestGiveUpAfter(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now: connections are refused

	cfg := testConfig(FeedURL("http://"+addr, "ws", "agent-1", "task-refused"))
	cfg.GiveUpAfter = 300 * time.Millisecond
	sink := newCollector()
	start := time.Now()
	err = runFeed(t, cfg, sink)
	took := time.Since(start)
	if err == nil {
		t.Fatal("the feed ended without an error")
	}
	for _, want := range []string{"gave up after 300ms", addr, "task-refused", "refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if took < cfg.GiveUpAfter || took > cfg.GiveUpAfter+2*time.Second {
		t.Errorf("gave up after %s, want about %s", took, cfg.GiveUpAfter)
	}
	states := sink.states()
	if len(states) == 0 || states[len(states)-1] != model.StateFailed {
		t.Errorf("states %v, want the last failed", states)
	}
}
