package demo

import (
	"bytes"
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
)

// maxRequestBody bounds what the guard reads of one POST.
const maxRequestBody = 4 << 20

// claimsKey carries the verified token claims to the tool handlers.
type claimsKey struct{}

// claimsFrom returns the verified claims of the current tools/call (nil when
// the request did not go through the guard).
func claimsFrom(ctx context.Context) map[string]any {
	c, _ := ctx.Value(claimsKey{}).(map[string]any)
	return c
}

// guard answers, before the SDK sees a request, what the contract says a
// server answers: a batch holding tools/call is 400/-32600, a missing static
// credential 401/-32001, and a tools/call whose token fails verification gets
// the HTTP status and JSON-RPC code of the failed step, with the request id.
// A verified call goes on with its claims in the request context.
func (s *demoServer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		if err != nil {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest, "request body too large")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		read := jsonrpc.Read(body)
		msgs, batch := read.Messages, read.Batch
		if read.Err != nil || len(msgs) == 0 {
			next.ServeHTTP(w, r) // the SDK answers malformed JSON-RPC itself
			return
		}
		if batch {
			if status, code, reason, reject := decoder.BatchRejection(msgs); reject {
				writeRPCError(w, status, decoder.BatchCallID(msgs), code, reason)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		m := msgs[0]
		if !s.credentialOK(r.Header) {
			writeRPCError(w, http.StatusUnauthorized, m.ID, jsonrpc.CodeUnauthorized, "missing or invalid credential")
			return
		}
		if m.Kind != jsonrpc.KindRequest || m.Method != jsonrpc.MethodToolsCall {
			next.ServeHTTP(w, r)
			return
		}
		if problem := cmp.Or(m.Call.Problem, m.Meta.Problem); problem != "" {
			writeRPCError(w, http.StatusBadRequest, m.ID, jsonrpc.CodeInvalidParams, problem)
			return
		}
		v := s.verify(r.Header.Get(decoder.ContextHeader), &m, time.Now())
		if !v.ok {
			writeRPCError(w, v.status, m.ID, v.code, v.reason)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), claimsKey{}, v.claims)))
	})
}

func (s *demoServer) credentialOK(h http.Header) bool {
	want := "Bearer " + s.credential
	got := h.Get("Authorization")
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.ErrorResponse(id, code, message))
}
