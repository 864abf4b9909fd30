package model

import (
	"strings"
	"testing"
)

// TestWireRedacted: a recorded exchange keeps no secret in full, wherever
// it was carried, and a body without one is kept byte for byte.
func TestWireRedacted(t *testing.T) {
	token := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXNlY3JldA"
	plain := `{"jsonrpc":"2.0", "id":1,"method":"tools/list"}`
	w := &Wire{Transport: TransportHTTP,
		Request: &WireRequest{Method: "POST", URL: "/mcp?api_key=k3y-secret&x=1",
			Headers: [][2]string{{"Authorization", "Bearer sk-live-secret"}, {"X-Agentarea-Context", token}, {"Accept", "*/*"}},
			Body:    &WireBody{Text: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login","arguments":{"user":"u","password":"hunter2-secret","nested":[{"api_key":"nested-secret"}]},"_meta":{"X-AgentArea-Context":"` + token + `","progressToken":"p-1"}}}`}},
		Response: &WireResponse{Status: 200, Headers: [][2]string{{"Set-Cookie", "sid=cookie-secret"}},
			Events: []WireEvent{{Data: plain}, {Data: `{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"access_token":"at-secret"}}}`}}},
	}
	red := RedactEvent(Event{Kind: KindWire, Wire: w}).Wire
	for _, out := range []string{dump(red)} {
		for _, secret := range []string{"sk-live-secret", "c2lnbmF0dXJlLXNlY3JldA", "k3y-secret", "hunter2-secret", "nested-secret", "cookie-secret", "at-secret"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s is in the recording: %s", secret, out)
			}
		}
		for _, kept := range []string{"p-1", "eyJzdWIiOiJ4In0", "Bearer [redacted]", `"user`} {
			if !strings.Contains(out, kept) {
				t.Errorf("%s is gone: %s", kept, out)
			}
		}
	}
	if red.Response.Events[0].Data != plain {
		t.Errorf("a body without a secret changed: %s", red.Response.Events[0].Data)
	}
	if w.Request.Headers[0][1] != "Bearer sk-live-secret" || !strings.Contains(w.Request.Body.Text, "hunter2") {
		t.Error("the original was modified")
	}
}

func dump(w *Wire) string {
	var b strings.Builder
	b.WriteString(w.Request.URL)
	for _, h := range append(w.Request.Headers, w.Response.Headers...) {
		b.WriteString(h[0] + ": " + h[1] + "\n")
	}
	b.WriteString(w.Request.Body.Text)
	for _, e := range w.Response.Events {
		b.WriteString(e.Data)
	}
	return b.String()
}
