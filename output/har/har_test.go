package har

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// TestEntries: each HTTP wire event is one entry; a stream is its SSE
// frames, a cut body says so, a stdio line is not an entry.
func TestEntries(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	w := NewWriter(&out, "test")
	added := []bool{
		w.Add(model.Event{Time: at, Kind: model.KindWire, Exchange: "1", Wire: &model.Wire{Transport: model.TransportHTTP,
			Request: &model.WireRequest{Method: "POST", Host: "127.0.0.1:7070", URL: "/mcp?a=b%20c", HTTPVersion: "HTTP/1.1",
				Headers: [][2]string{{"Content-Type", "application/json"}}, Body: &model.WireBody{Text: `{"jsonrpc"`, Size: 900, Cut: true}},
			Response: &model.WireResponse{Status: 200, Headers: [][2]string{{"Content-Type", "text/event-stream"}}, HeadMS: 2, EndMS: 10.5,
				Events: []model.WireEvent{{AtMS: 3, ID: "7", Event: "message", Data: "{\"a\":1}\n{\"b\":2}"}}, EventsCut: 2, EventsCutBytes: 100}}}),
		w.Add(model.Event{Time: at, Kind: model.KindWire, Wire: &model.Wire{Transport: model.TransportHTTP,
			Request:  &model.WireRequest{Method: "GET", URL: "http://example.test/mcp"},
			Response: &model.WireResponse{Error: "client disconnected"}}}),
		w.Add(model.Event{Time: at, Kind: model.KindWire, Wire: &model.Wire{Transport: model.TransportStdio, From: "client", Message: &model.WireBody{Text: "{}"}}}),
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if added[0] != true || added[1] != true || added[2] != false || w.Entries() != 2 {
		t.Fatalf("added %v, %d entries", added, w.Entries())
	}
	var har struct {
		Log struct {
			Version string
			Entries []entry
		}
	}
	if err := json.Unmarshal(out.Bytes(), &har); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	e := har.Log.Entries[0]
	if har.Log.Version != "1.2" || e.Request.URL != "http://127.0.0.1:7070/mcp?a=b%20c" || e.Request.QueryString[0] != (nameValue{"a", "b c"}) {
		t.Errorf("request %+v", e.Request)
	}
	if !strings.Contains(e.Request.Comment, "900") || e.Request.BodySize != 900 {
		t.Errorf("a cut body: %+v", e.Request)
	}
	if want := "event: message\nid: 7\ndata: {\"a\":1}\ndata: {\"b\":2}\n\n"; e.Response.Content.Text != want || !strings.Contains(e.Response.Content.Comment, "2 events") {
		t.Errorf("stream content %q (%s)", e.Response.Content.Text, e.Response.Content.Comment)
	}
	if e.Timings.Wait != 2 || e.Timings.Receive != 8.5 || e.Time != 10.5 || e.StartedDateTime != "2026-11-30T12:00:00Z" {
		t.Errorf("timings %+v, time %v, started %s", e.Timings, e.Time, e.StartedDateTime)
	}
	gone := har.Log.Entries[1]
	if gone.Request.URL != "http://example.test/mcp" || gone.Response.Status != 0 || gone.Comment != "client disconnected" {
		t.Errorf("an exchange without an answer: %+v", gone)
	}
}
