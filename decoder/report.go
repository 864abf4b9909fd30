package decoder

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// DecodeInput is one token to decode, and what to verify it against.
type DecodeInput struct {
	Token string // the token, or a header line holding it
	// Call is the tools/call request body (or just its params) to judge the
	// token with, as the tap judges it; nil for the token alone.
	Call []byte
	// Header holds the request's other headers (decode --header), for the
	// rules on headers; the token is sent in ContextHeader.
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
	Times      *TokenTimes     `json:"times,omitempty"`
	Steps      []model.Step    `json:"steps"`
	Warnings   []model.Warning `json:"warnings,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Secrets    int             `json:"secrets"`
}

// TokenTimes are iat and exp as times and relative to now.
type TokenTimes struct {
	IssuedAt  *time.Time `json:"iat,omitempty"`
	ExpiresAt *time.Time `json:"exp,omitempty"`
	Age       string     `json:"age,omitempty"` // "issued 12 s ago, expires in 4 m 48 s"
}

// tokenTimes reads iat and exp from claims and says, relative to now, when the
// token was issued and when it expires: "issued 12 s ago, expires in 4 m 48 s".
func tokenTimes(claims map[string]any, now time.Time) *TokenTimes {
	iat, iatOK := numericDate(claims["iat"])
	exp, expOK := numericDate(claims["exp"])
	if !iatOK && !expOK {
		return nil
	}
	t := &TokenTimes{}
	var parts []string
	if iatOK {
		u := iat.UTC()
		t.IssuedAt = &u
		if iat.After(now) {
			parts = append(parts, "issued "+HumanDuration(iat.Sub(now))+" in the future")
		} else {
			parts = append(parts, "issued "+HumanDuration(now.Sub(iat))+" ago")
		}
	}
	if expOK {
		u := exp.UTC()
		t.ExpiresAt = &u
		if exp.After(now) {
			parts = append(parts, "expires in "+HumanDuration(exp.Sub(now)))
		} else {
			parts = append(parts, "expired "+HumanDuration(now.Sub(exp))+" ago")
		}
	}
	t.Age = strings.Join(parts, ", ")
	return t
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
	token := strings.TrimSpace(in.Token)
	// A header line pasted whole ("X-AgentArea-Context: eyJ...") is accepted.
	if len(token) > len(ContextHeader) && strings.EqualFold(token[:len(ContextHeader)], ContextHeader) && token[len(ContextHeader)] == ':' {
		token = strings.TrimSpace(token[len(ContextHeader)+1:])
	}
	if token == "" {
		return DecodeReport{}, ErrNoToken
	}
	var ctx model.Context
	var ws []model.Warning
	var tool string
	if in.Call == nil {
		ctx, ws = Verify(VerifyInput{Token: token, Secrets: in.Secrets, InstanceID: in.InstanceID, Now: in.Now, CallUnknown: true})
	} else {
		body, err := readCall(in.Call)
		if err != nil {
			return DecodeReport{}, &CallError{err}
		}
		header := in.Header.Clone()
		if header == nil {
			header = http.Header{}
		}
		header.Set(ContextHeader, token)
		judge := Judge{Secrets: in.Secrets, InstanceID: in.InstanceID}
		judged := judge.Request(Request{Body: body, Header: header, Method: http.MethodPost, Now: in.Now})
		call := judged.Calls[0]
		ctx, ws, tool = call.Context, call.Warnings, call.Message.Call.Name
	}
	return DecodeReport{
		Verdict: ctx.Verdict, HTTPStatus: ctx.HTTPStatus, RPCCode: ctx.RPCCode, Reason: ctx.Reason,
		Header: ctx.Header, Claims: ctx.Claims, Times: tokenTimes(ctx.Claims, in.Now),
		Steps: ctx.Steps, Warnings: ws, Tool: tool, Secrets: len(in.Secrets),
	}, nil
}

// readCall reads a body holding a tools/call request (alone or in a batch),
// or a bare params object with a name, as a request.
func readCall(text []byte) (jsonrpc.Body, error) {
	body := jsonrpc.Read(text)
	if body.Err != nil {
		return body, body.Err
	}
	for _, m := range body.Messages {
		if m.IsCall() {
			return body, nil
		}
	}
	if !body.Batch && body.Messages[0].Kind == jsonrpc.KindInvalid {
		// Not JSON-RPC: maybe the params object alone.
		wrapped := jsonrpc.Read([]byte(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":` + string(text) + `}`))
		if wrapped.Err == nil && wrapped.Messages[0].IsCall() && wrapped.Messages[0].Call.Problem == "" {
			return wrapped, nil
		}
	}
	return body, errors.New("no tools/call request in the body")
}

// ClaimText is a claim's value as decode shows it: whole, a string
// unquoted, and iat, exp and nbf followed by their date.
func ClaimText(key string, v any) string {
	text := describeFull(v)
	if key == "iat" || key == "exp" || key == "nbf" {
		if t, ok := numericDate(v); ok {
			text += "  " + t.UTC().Format(time.RFC3339)
		}
	}
	return text
}

// describeFull renders a claim value whole (strings unquoted).
func describeFull(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	return string(b)
}
