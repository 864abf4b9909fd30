package tap

import (
	"mime"
	"testing"
)

// isEventStream answers as mime.ParseMediaType does.
func TestIsEventStreamAsMime(t *testing.T) {
	for _, ct := range []string{
		"", "text/event-stream", "TEXT/Event-Stream", " text/event-stream\t", "text/event-stream; charset=utf-8",
		"text/event-stream;", "text/event-stream; bad", "text/event-stream; a=1; a=2", "application/json",
		"application/json; charset=utf-8", "text/event-stream2", "text/event-stream\v", "text/event-\u017ftream",
		"\u00a0text/event-stream", "text /event-stream", "text/event-stream, application/json", ";text/event-stream",
	} {
		mt, _, _ := mime.ParseMediaType(ct)
		if got, want := isEventStream(ct), mt == "text/event-stream"; got != want {
			t.Errorf("isEventStream(%q) = %v, mime says %v", ct, got, want)
		}
	}
}
