package decoder

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/token"
	"toolscope/model"
)

// DecodeInput is one token to decode, and what to verify it against.
type DecodeInput struct {
	Token string // the token, or a header line holding it
	// Call is the tools/call request body (or just its params) to judge the
	// token with, as the tap judges it; nil for the token alone.
	Call []byte
	// Header holds the request's other headers (decode --header), for the
	// rules on headers; the token is sent in model.ContextHeader.
	Header     http.Header
	InstanceID string
	Secrets    [][]byte
	Now        time.Time
}

// ErrNoToken is Decode's answer to an empty token.
var ErrNoToken = errors.New("no token")

// CallError says the call given to check the token against is unreadable.
type CallError struct{ Err error }

func (e *CallError) Error() string { return "the call: " + e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// DecodeReport is what `decode --output json` prints.
type DecodeReport struct {
	Verdict    string          `json:"verdict"`
	HTTPStatus int             `json:"http_status,omitempty"`
	RPCCode    int             `json:"rpc_code,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	Header     map[string]any  `json:"header,omitempty"`
	Claims     map[string]any  `json:"claims,omitempty"`
	Times      *token.Times    `json:"times,omitempty"`
	Steps      []model.Step    `json:"steps"`
	Warnings   []model.Warning `json:"warnings,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Secrets    int             `json:"secrets"`
}

// Decode reads one token and verifies it; with a call, it judges the call
// as a tap judges the same body, token and headers (the one Judge): the
// header, the claims, each step, the verdict, the answer a server must
// give and the warnings. An error is the input's (ErrNoToken, a
// *CallError: a body holding no tools/call), never the token's or the
// call's: a bad token or a malformed call is a rejected verdict.
func Decode(in DecodeInput) (DecodeReport, error) {
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	tok := strings.TrimSpace(in.Token)
	// A header line pasted whole ("X-AgentArea-Context: eyJ...") is accepted.
	if len(tok) > len(model.ContextHeader) && strings.EqualFold(tok[:len(model.ContextHeader)], model.ContextHeader) && tok[len(model.ContextHeader)] == ':' {
		tok = strings.TrimSpace(tok[len(model.ContextHeader)+1:])
	}
	if tok == "" {
		return DecodeReport{}, ErrNoToken
	}
	var ctx model.Context
	var ws []model.Warning
	var tool string
	if in.Call == nil {
		ctx, ws = token.Verify(token.Input{Token: tok, Secrets: in.Secrets, InstanceID: in.InstanceID, Now: in.Now, CallUnknown: true})
	} else {
		header := in.Header.Clone()
		if header == nil {
			header = http.Header{}
		}
		header.Set(model.ContextHeader, tok)
		call, err := judgeCall(in, header)
		if err != nil {
			return DecodeReport{}, &CallError{err}
		}
		ctx, ws, tool = call.Context, call.Warnings, call.Message.Call.Name
	}
	return DecodeReport{
		Verdict: ctx.Verdict, HTTPStatus: ctx.HTTPStatus, RPCCode: ctx.RPCCode, Reason: ctx.Reason,
		Header: ctx.Header, Claims: ctx.Claims, Times: token.TimesOf(ctx.Claims, in.Now),
		Steps: ctx.Steps, Warnings: ws, Tool: tool, Secrets: len(in.Secrets),
	}, nil
}

// judgeCall judges the call of a body holding a tools/call request (alone
// or in a batch), or of a bare params object with a name, as a tap judges
// that request.
func judgeCall(in DecodeInput, header http.Header) (CallJudgment, error) {
	judge := Judge{Secrets: in.Secrets, InstanceID: in.InstanceID}
	judge1 := func(body []byte) Judgment {
		return judge.Request(Request{Method: http.MethodPost, Header: header, Body: body, Whole: true, Now: in.Now})
	}
	judged := judge1(in.Call)
	switch b := judged.Body; {
	case len(judged.Calls) > 0:
		return judged.Calls[0], nil
	case b.Err != nil:
		return CallJudgment{}, b.Err
	case !b.Batch && b.Messages[0].Kind == jsonrpc.KindInvalid:
		// Not JSON-RPC: maybe the params object alone.
		judged = judge1([]byte(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":` + string(in.Call) + `}`))
		if len(judged.Calls) > 0 && judged.Calls[0].Message.Call.Problem == "" {
			return judged.Calls[0], nil
		}
	}
	return CallJudgment{}, errors.New("no tools/call request in the body")
}
