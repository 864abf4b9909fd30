package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"toolscope/decoder/jsonrpc"
)

// maxRequestBytes bounds a request body the mock reads.
const maxRequestBytes = 16 << 20

// HTTPHandler serves the script over MCP Streamable HTTP, on any path: a
// POST is answered as recorded (an event stream when the recording's was
// one and the client accepts it, else JSON), a notification 202; GET (no
// server stream is offered) 405; DELETE ends a session, 204.
func (sv *Server) HTTPHandler() http.Handler {
	var sessions atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.Header().Set("Allow", "POST, DELETE")
			http.Error(w, "toolscope mock serves POST (no server-to-client stream)", http.StatusMethodNotAllowed)
			return
		}
		start := time.Now()
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes))
		if err != nil {
			return
		}
		read := jsonrpc.Read(body)
		switch {
		case read.Err != nil:
			jsonrpc.WriteResponse(w, http.StatusBadRequest, jsonrpc.ErrorResponse(nil, jsonrpc.CodeParseError, "toolscope mock: "+read.Err.Error()))
			return
		case read.Batch:
			jsonrpc.WriteResponse(w, http.StatusBadRequest, jsonrpc.ErrorResponse(nil, jsonrpc.CodeInvalidRequest, "toolscope mock: batches are not served"))
			return
		}
		m := read.Messages[0]
		if m.Kind != jsonrpc.KindRequest {
			w.WriteHeader(http.StatusAccepted) // a notification or a response to the server
			return
		}
		rep := sv.replyTo(m)
		if rep.session && m.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("toolscope-mock-%d", sessions.Add(1)))
		}
		if !(rep.stream || len(rep.steps) > 0) || !acceptsEventStream(r) {
			rep.steps = nil // JSON carries the response alone
			if waitUntil(r.Context(), start.Add(rep.finalAt)) {
				jsonrpc.WriteResponse(w, http.StatusOK, rep.final)
			}
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache, no-transform")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		rc.Flush()
		rep.play(r.Context(), start, func(msg json.RawMessage) error {
			var b bytes.Buffer
			b.WriteString("event: message\ndata: ")
			b.Write(msg)
			b.WriteString("\n\n")
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			return rc.Flush()
		})
	})
}

func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(strings.ToLower(v), "text/event-stream") {
			return true
		}
	}
	return false
}
