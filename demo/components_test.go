package demo

import (
	"net"
	"net/url"
	"testing"
	"time"

	"toolscope/model"
)

// TestComponentsCloseStopsWhatStarted: close stops every part start opened
// (their sockets refuse connections afterwards), and skips the parts an
// early return of start left unstarted.
func TestComponentsCloseStopsWhatStarted(t *testing.T) {
	(&components{}).close() // nothing started: nothing to stop, no panic

	c := &components{}
	if err := c.start(newPace(10), model.SinkFunc(func(model.Event) {})); err != nil {
		c.close()
		t.Fatalf("start: %v", err)
	}
	host := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		return u.Host
	}
	addrs := map[string]string{
		"MCP server":  host(c.server.URL()),
		"sheets tap":  c.sheetsTap.Addr(),
		"SOAT tap":    c.soatTap.Addr(),
		"feed server": host(c.feeds.API()),
	}
	for part, addr := range addrs {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			c.close()
			t.Fatalf("%s at %s before close: %v", part, addr, err)
		}
		_ = conn.Close()
	}
	c.close()
	for part, addr := range addrs {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = conn.Close()
			t.Errorf("%s at %s still accepts connections after close", part, addr)
		}
	}
}
