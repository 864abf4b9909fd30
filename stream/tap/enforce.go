package tap

import (
	"encoding/json"
	"net/http"
	"strconv"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// answer is the error --enforce sends instead of forwarding.
type answer struct {
	status int
	code   int
	reason string
	body   []byte
}

// verdictRefusal is an answer before its body is written.
type verdictRefusal struct {
	status, code int
	id           json.RawMessage
	reason       string
}

func newAnswer(status, code int, id json.RawMessage, reason string) *verdictRefusal {
	return &verdictRefusal{status: status, code: code, id: id, reason: reason}
}

// enforceAnswer says how a server following the contract must answer this
// request, or nil when it must run the call. First the tap must have read
// the request exactly as any server would (strictAnswer); then a tools/call
// in a batch is a 400/-32600 and a call whose context fails verification
// gets the status and code the judgment names (401/-32001, 403/-32003,
// 400/-32602).
func (t *Tap) enforceAnswer(ex *exchange) *answer {
	r := t.mustRefuse(ex)
	if r == nil {
		return nil
	}
	return &answer{status: r.status, code: r.code, reason: r.reason, body: jsonrpc.ErrorResponse(r.id, r.code, r.reason)}
}

// mustRefuse is why a server must not run this request, nil when it may.
func (t *Tap) mustRefuse(ex *exchange) *verdictRefusal {
	pr := ex.req
	if a := t.strictAnswer(ex); a != nil {
		return a
	}
	if len(pr.calls) == 0 {
		return nil
	}
	if pr.body.Batch {
		// AgentArea never batches tools/call, and batching left MCP in 2025-06-18.
		return newAnswer(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, json.RawMessage(pr.calls[0].callEv.RequestID), "tools/call inside a JSON-RPC batch")
	}
	for _, c := range pr.calls {
		ctx := c.callEv.Context
		if ctx == nil || ctx.Verdict != model.VerdictRejected || ctx.HTTPStatus == 0 {
			continue
		}
		return newAnswer(ctx.HTTPStatus, ctx.RPCCode, json.RawMessage(c.callEv.RequestID), ctx.Reason)
	}
	return nil
}

// strictAnswer refuses a request the tap did not read exactly as any
// server would: a body on a method other than POST, a POST body over
// --max-parse-bytes (413), one whose reading is ambiguous (see
// readStrictly), and one that is not JSON-RPC at all, which a server might
// still make sense of.
func (t *Tap) strictAnswer(ex *exchange) *verdictRefusal {
	pr := ex.req
	if ex.method != http.MethodPost {
		if a := pr.strict; a != nil { // a body on another method
			return newAnswer(http.StatusBadRequest, a.RPCCode, nil, a.Reason)
		}
		return nil
	}
	if !ex.bodyWhole && pr.strict == nil {
		if len(ex.body) == 0 { // no body at all (net/http gives none to read)
			return newAnswer(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, nil, "the body is empty")
		}
		return newAnswer(http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, nil,
			"the request body is over "+strconv.FormatInt(t.cfg.MaxParseBytes, 10)+" bytes (--max-parse-bytes): --enforce cannot verify it")
	}
	if a := pr.strict; a != nil {
		return newAnswer(http.StatusBadRequest, a.RPCCode, a.ID, a.Reason)
	}
	if len(pr.body.Messages) == 0 {
		return newAnswer(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, nil, "the body holds no JSON-RPC message")
	}
	for _, m := range pr.body.Messages {
		if m.Kind == jsonrpc.KindInvalid {
			return newAnswer(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, m.ID, "invalid JSON-RPC message: "+m.Problem)
		}
	}
	return nil
}
