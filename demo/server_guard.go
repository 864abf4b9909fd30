package demo

import (
	"bytes"
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
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
// server answers: a missing static credential is 401/-32001, and a
// tools/call the judgment rejects (a batch holding it, a token that fails
// verification, malformed params) gets the HTTP status and JSON-RPC code of
// the failed step, with the request id: the server judges as toolscope's
// tap does, with the one Judge. A verified call goes on with its claims in
// the request context.
func (s *demoServer) guard(next http.Handler) http.Handler {
	judge := &decoder.Judge{Secrets: s.secrets, InstanceID: s.instanceID}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		if err != nil {
			jsonrpc.WriteResponse(w, http.StatusRequestEntityTooLarge, jsonrpc.ErrorResponse(nil, jsonrpc.CodeInvalidRequest, "request body too large"))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		judged := judge.Request(decoder.Request{Method: r.Method, Header: r.Header, Body: body, Whole: true, Now: time.Now()})
		read := judged.Body
		if read.Err != nil || len(read.Messages) == 0 {
			next.ServeHTTP(w, r) // the SDK answers malformed JSON-RPC itself
			return
		}
		if !s.credentialOK(r.Header) {
			jsonrpc.WriteResponse(w, http.StatusUnauthorized, jsonrpc.ErrorResponse(read.Messages[0].ID, jsonrpc.CodeUnauthorized, "missing or invalid credential"))
			return
		}
		if len(judged.Calls) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		c := judged.Calls[0]
		if v := c.Context; v.Verdict != model.VerdictValid {
			status, code, reason := v.HTTPStatus, v.RPCCode, v.Reason
			if status == 0 || code == 0 {
				status, code, reason = http.StatusUnauthorized, jsonrpc.CodeUnauthorized, "context token rejected"
			}
			jsonrpc.WriteResponse(w, status, jsonrpc.ErrorResponse(c.Message.ID, code, reason))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), claimsKey{}, c.Context.Claims)))
	})
}

func (s *demoServer) credentialOK(h http.Header) bool {
	want := "Bearer " + s.credential
	got := h.Get("Authorization")
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
