package tap

import (
	"encoding/json"

	"toolscope/decoder"
	"toolscope/model"
)

// answer is the error --enforce sends instead of forwarding.
type answer struct {
	status int
	code   int
	reason string
	body   []byte
}

// enforceAnswer says how a server following the contract must answer this
// request, or nil when it must run the call: a tools/call in a batch is a
// 400/-32600; a call whose context fails verification gets the status and
// code VerifyContext names (401/-32001, 403/-32003, 400/-32602).
func (t *Tap) enforceAnswer(pr *parsedRequest) *answer {
	if len(pr.calls) == 0 {
		return nil
	}
	id := json.RawMessage(pr.calls[0].requestID)
	if pr.batch {
		if status, code, reason, reject := decoder.BatchRejection(pr.msgs); reject {
			return &answer{status: status, code: code, reason: reason, body: decoder.ErrorResponse(id, code, reason)}
		}
	}
	for _, c := range pr.calls {
		ctx := c.callEv.Context
		if ctx == nil || ctx.Verdict != model.VerdictRejected || ctx.HTTPStatus == 0 {
			continue
		}
		return &answer{status: ctx.HTTPStatus, code: ctx.RPCCode, reason: ctx.Reason,
			body: decoder.ErrorResponse(json.RawMessage(c.requestID), ctx.RPCCode, ctx.Reason)}
	}
	return nil
}
