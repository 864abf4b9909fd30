package decoder

import (
	"encoding/json"
	"net/http"
	"strconv"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// Answer is the error a server following the contracts answers a request
// with instead of running it: what the tap sends under --enforce.
type Answer struct {
	Status int    // HTTP status
	Code   int    // JSON-RPC error code
	Reason string // why, as the request's calls say it
	Body   []byte // the JSON-RPC error (jsonrpc.ErrorResponse)

	id json.RawMessage // of the request answered (nil: null)
}

func newAnswer(status, code int, id json.RawMessage, reason string) *Answer {
	return &Answer{Status: status, Code: code, Reason: reason, id: id}
}

// answer is how a server following the contract must answer this request,
// its JSON-RPC error written out, or nil when it must run it.
func (j *Judge) answer(r Request, out *Judgment) *Answer {
	a := j.refusal(r, out)
	if a != nil {
		a.Body = jsonrpc.ErrorResponse(a.id, a.Code, a.Reason)
	}
	return a
}

// refusal is why a server following the contract must not run this
// request, or nil when it must run it. First the request must have been
// read exactly as any server would (strictAnswer); then a tools/call in a
// batch is a 400/-32600 and a call whose context fails verification gets
// the status and code the judgment names (401/-32001, 403/-32003,
// 400/-32602).
func (j *Judge) refusal(r Request, out *Judgment) *Answer {
	if a := j.strictAnswer(r, out); a != nil {
		return a
	}
	if len(out.Calls) == 0 {
		return nil
	}
	if out.Body.Batch {
		// AgentArea never batches tools/call, and batching left MCP in 2025-06-18.
		return newAnswer(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, out.Calls[0].Message.ID, "tools/call inside a JSON-RPC batch")
	}
	for i := range out.Calls {
		c := &out.Calls[i]
		if ctx := c.Context; ctx.Verdict == model.VerdictRejected && ctx.HTTPStatus != 0 {
			return newAnswer(ctx.HTTPStatus, ctx.RPCCode, c.Message.ID, ctx.Reason)
		}
	}
	return nil
}

// strictAnswer refuses a request not read exactly as any server would: a
// body on a method other than POST, a POST body over the parse limit (413),
// one whose reading is ambiguous (see jsonrpc.Ambiguity), and one that is
// not JSON-RPC at all, which a server might still make sense of.
func (j *Judge) strictAnswer(r Request, out *Judgment) *Answer {
	if r.Method != http.MethodPost {
		if a := out.Strict; a != nil { // a body on another method
			return newAnswer(http.StatusBadRequest, a.RPCCode, nil, a.Reason)
		}
		return nil
	}
	if !r.Whole && out.Strict == nil {
		if len(r.Body) == 0 { // no body at all (net/http gives none to read)
			return newAnswer(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, nil, "the body is empty")
		}
		return newAnswer(http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, nil,
			"the request body is over "+strconv.FormatInt(j.MaxParseBytes, 10)+" bytes (--max-parse-bytes): --enforce cannot verify it")
	}
	if a := out.Strict; a != nil {
		return newAnswer(http.StatusBadRequest, a.RPCCode, a.ID, a.Reason)
	}
	if len(out.Body.Messages) == 0 {
		return newAnswer(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, nil, "the body holds no JSON-RPC message")
	}
	for _, m := range out.Body.Messages {
		if m.Kind == jsonrpc.KindInvalid {
			return newAnswer(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, m.ID, "invalid JSON-RPC message: "+m.Problem)
		}
	}
	return nil
}
