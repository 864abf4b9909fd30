package decoder

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/model/modeltest"
)

// TestJudgeAnswer: with Enforce, a judgment names the answer a server
// following the contract gives instead of running the request (the
// table in docs/security.md), its JSON-RPC error written out with the
// request's id where it could be read; a request it may run has none, and
// without Enforce no request has one.
func TestJudgeAnswer(t *testing.T) {
	secret := []byte("judge-answer-secret-0123456789abcdef")
	call := modeltest.CallBody(t, 7, "get_order", map[string]any{}, nil)
	good := modeltest.MintToken(t, secret, "inst-1", "get_order", nil, nil)
	bad := modeltest.MintToken(t, []byte("another-secret-0123456789abcdefghij"), "inst-1", "get_order", nil, nil)
	cases := []struct {
		name     string
		method   string
		body     string
		whole    bool
		token    string
		status   int
		code     int    // JSON-RPC
		inAnswer string // in the error body ("" with no answer)
	}{
		{"a valid call runs", http.MethodPost, string(call), true, good, 0, 0, ""},
		{"a body on GET", http.MethodGet, string(call), true, "", http.StatusBadRequest, jsonrpc.CodeInvalidRequest, `"id":null`},
		{"no body", http.MethodPost, "", false, good, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "the body is empty"},
		{"over the parse limit", http.MethodPost, string(call), false, good, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "over 4096 bytes (--max-parse-bytes)"},
		{"not JSON", http.MethodPost, "{", true, good, http.StatusBadRequest, jsonrpc.CodeParseError, `"id":null`},
		{"an empty batch", http.MethodPost, "[]", true, good, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, `"id":null`},
		{"a batched call", http.MethodPost, "[" + string(call) + "]", true, good, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, `"id":7,"error":{"code":-32600,"message":"tools/call inside a JSON-RPC batch"}`},
		{"a token that fails", http.MethodPost, string(call), true, bad, http.StatusUnauthorized, -32001, `"id":7`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json"}}
			if tc.token != "" {
				h.Set(model.ContextHeader, tc.token)
			}
			r := Request{Method: tc.method, Header: h, Body: []byte(tc.body), Whole: tc.whole, Exchange: "1"}
			if off := (&Judge{Secrets: [][]byte{secret}, InstanceID: "inst-1"}).Request(r); off.Answer != nil {
				t.Errorf("without Enforce: answer %d %s", off.Answer.Status, off.Answer.Body)
			}
			a := (&Judge{Secrets: [][]byte{secret}, InstanceID: "inst-1", Enforce: true, MaxParseBytes: 4096}).Request(r).Answer
			if tc.status == 0 {
				if a != nil {
					t.Fatalf("answer %d %s, want none", a.Status, a.Body)
				}
				return
			}
			if a == nil {
				t.Fatalf("no answer, want %d", tc.status)
			}
			var body struct {
				Error struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal(a.Body, &body); err != nil || body.Error.Code != a.Code || body.Error.Message != a.Reason {
				t.Errorf("body %s is not the error %d %q (%v)", a.Body, a.Code, a.Reason, err)
			}
			if a.Status != tc.status || a.Code != tc.code || !strings.Contains(string(a.Body), tc.inAnswer) {
				t.Errorf("answer %d/%d %s, want %d/%d with %s", a.Status, a.Code, a.Body, tc.status, tc.code, tc.inAnswer)
			}
		})
	}
}
