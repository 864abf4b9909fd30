//go:build !race

package tap

import (
	"context"
	"net/http"
	"testing"
)

// Every request's head is recorded as it arrives and handed to its
// handler: of its fields only those that may be SOAT keys are kept, in one
// string, one list and the header handed over (3 allocations for this
// head; 4 and the whole head copied when every field was kept), and a
// head without them costs nothing.
func TestRawHeadAllocations(t *testing.T) {
	head := []byte("POST /mcp HTTP/1.1\r\nHost: tap\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Mcp-Session-Id: s-1\r\nMcp-Protocol-Version: 2025-06-18\r\nX-Soat-Context-tenantExternalId: t-9\r\nContent-Length: 0\r\n\r\n")
	hc := &headConn{}
	r := &http.Request{Method: "POST", RequestURI: "/mcp", ProtoMajor: 1, Header: http.Header{
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}, "Mcp-Session-Id": {"s-1"},
		"Mcp-Protocol-Version": {"2025-06-18"}, "X-Soat-Context-Tenantexternalid": {"t-9"}, "Content-Length": {"0"}}}
	r = r.WithContext(context.WithValue(context.Background(), headConnKey{}, hc))
	n := testing.AllocsPerRun(100, func() {
		hc.feed(head)
		if rawHeaderOf(r) == nil {
			t.Fatal("the head was not recorded")
		}
	})
	if n > 3 {
		t.Errorf("%.0f allocations to record a request head, want at most 3", n)
	}
	plain := []byte("POST /mcp HTTP/1.1\r\nHost: tap\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n")
	r.Header = http.Header{"Content-Type": {"application/json"}, "Content-Length": {"0"}}
	n = testing.AllocsPerRun(100, func() {
		hc.feed(plain)
		if rawHeaderOf(r) == nil {
			t.Fatal("the head was not recorded")
		}
	})
	if n > 0 {
		t.Errorf("%.0f allocations to record a request head without SOAT fields, want none", n)
	}
}
