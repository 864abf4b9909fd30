package decoder

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// DecodeInput is one token to decode, and what to verify it against.
type DecodeInput struct {
	Token      string // the token, or a header line holding it
	Call       []byte // optional: the tools/call request body (or just its params)
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
	Verdict    string         `json:"verdict"`
	HTTPStatus int            `json:"http_status,omitempty"`
	RPCCode    int            `json:"rpc_code,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Header     map[string]any `json:"header,omitempty"`
	Claims     map[string]any `json:"claims,omitempty"`
	Times      *TokenTimes    `json:"times,omitempty"`
	Steps      []model.Step   `json:"steps"`
	Warnings   []Warning      `json:"warnings,omitempty"`
	Tool       string         `json:"tool,omitempty"`
	Secrets    int            `json:"secrets"`
}

// TokenTimes are iat and exp as times and relative to now.
type TokenTimes struct {
	IssuedAt  *time.Time `json:"iat,omitempty"`
	ExpiresAt *time.Time `json:"exp,omitempty"`
	Age       string     `json:"age,omitempty"` // "issued 12 s ago, expires in 4 m 48 s"
}

// MarshalJSON gives Warning lower-case field names on the JSON interface.
func (w Warning) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{string(w.Code), w.Message})
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

// Decode reads one token and verifies it (against the call when given):
// the header, the claims, each step, the verdict and the answer a server
// must give. An error is the input's (ErrNoToken, a *CallError), never the
// token's: a bad token is a rejected verdict.
func Decode(in DecodeInput) (DecodeReport, error) {
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	token := strings.TrimSpace(in.Token)
	// A header line pasted whole ("X-AgentArea-Context: eyJ...") is accepted.
	if len(token) > len(ContextHeader) && asciiEqualFold(token[:len(ContextHeader)], ContextHeader) && token[len(ContextHeader)] == ':' {
		token = strings.TrimSpace(token[len(ContextHeader)+1:])
	}
	if token == "" {
		return DecodeReport{}, ErrNoToken
	}
	v := VerifyInput{Token: token, Secrets: in.Secrets, InstanceID: in.InstanceID, Now: in.Now, CallUnknown: true}
	if len(in.Call) > 0 {
		call, inBatch, err := readCall(in.Call)
		if err != nil {
			return DecodeReport{}, &CallError{err}
		}
		if call.Call.Problem != "" {
			return DecodeReport{}, &CallError{errors.New(call.Call.Problem)}
		}
		v.CallUnknown = false
		v.ToolName, v.Meta, v.InBatch, v.MetaProblem = call.Call.Name, call.Meta.AgentArea, inBatch, call.Meta.Problem
	}
	ctx, ws := Verify(v)
	return DecodeReport{
		Verdict: ctx.Verdict, HTTPStatus: ctx.HTTPStatus, RPCCode: ctx.RPCCode, Reason: ctx.Reason,
		Header: ctx.Header, Claims: ctx.Claims, Times: tokenTimes(ctx.Claims, in.Now),
		Steps: ctx.Steps, Warnings: ws, Tool: v.ToolName, Secrets: len(in.Secrets),
	}, nil
}

// readCall reads a tools/call request body (a JSON-RPC request, a batch
// holding one, or a bare params object).
func readCall(body []byte) (jsonrpc.Message, bool, error) {
	b := jsonrpc.Read(body)
	if b.Err != nil {
		return jsonrpc.Message{}, false, b.Err
	}
	for _, m := range b.Messages {
		if m.IsCall() {
			return m, b.Batch, nil
		}
	}
	if !b.Batch && b.Messages[0].Kind == jsonrpc.KindInvalid {
		// Not JSON-RPC: maybe the params object alone.
		wrapped := jsonrpc.Read([]byte(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":` + string(body) + `}`))
		if wrapped.Err == nil && wrapped.Messages[0].IsCall() && wrapped.Messages[0].Call.Problem == "" {
			return wrapped.Messages[0], false, nil
		}
	}
	return jsonrpc.Message{}, b.Batch, errors.New("no tools/call request in the body")
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
