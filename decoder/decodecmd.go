package decoder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"toolscope/model"
)

// Exit codes of `toolscope decode`.
const (
	ExitValid    = 0 // valid, or unverified (no secret)
	ExitRejected = 1
	ExitUsage    = 2
)

// DecodeArgs are the already-parsed inputs of `toolscope decode`.
type DecodeArgs struct {
	Token      string // the token ("-" already read from stdin by the caller)
	Call       []byte // optional: the tools/call request body (or just its params)
	InstanceID string
	Secrets    [][]byte // from TOOLSCOPE_CONTEXT_SECRET and --secret-file, never argv
	Output     string   // "text" (default) or "json"
	Now        time.Time
	// Stderr receives usage errors when set (stdout otherwise).
	Stderr io.Writer
}

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

// Times reads iat and exp from claims and says, relative to now, when the
// token was issued and when it expires: "issued 12 s ago, expires in 4 m 48 s".
func Times(claims map[string]any, now time.Time) *TokenTimes {
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

// RunDecode verifies one token (against the call when given) and prints the
// header, the claims, each step, the verdict and the answer a server must
// give. It returns the exit code: 0 valid or unverified, 1 rejected, 2 usage.
func RunDecode(args DecodeArgs, stdout io.Writer) (exitCode int) {
	if args.Now.IsZero() {
		args.Now = time.Now()
	}
	errOut := args.Stderr
	if errOut == nil {
		errOut = stdout
	}
	switch args.Output {
	case "", "text", "json":
	default:
		fmt.Fprintf(errOut, "toolscope decode: --output must be text or json, not %q\n", model.Sanitize(args.Output))
		return ExitUsage
	}
	token := strings.TrimSpace(args.Token)
	// A header line pasted whole ("X-AgentArea-Context: eyJ...") is accepted.
	if len(token) > len(ContextHeader) && asciiEqualFold(token[:len(ContextHeader)], ContextHeader) && token[len(ContextHeader)] == ':' {
		token = strings.TrimSpace(token[len(ContextHeader)+1:])
	}
	if token == "" {
		fmt.Fprintln(errOut, "toolscope decode: no token (give it as an argument, or - to read it from stdin)")
		return ExitUsage
	}
	in := VerifyInput{Token: token, Secrets: args.Secrets, InstanceID: args.InstanceID, Now: args.Now, CallUnknown: true}
	if len(args.Call) > 0 {
		call, inBatch, err := ReadCall(args.Call)
		if errors.Is(err, ErrMetaNotObject) {
			in.MetaProblem, err = err.Error(), nil // the verdict says it: 400/-32602
		}
		if err != nil {
			fmt.Fprintf(errOut, "toolscope decode: --call: %s\n", model.Sanitize(err.Error()))
			return ExitUsage
		}
		in.CallUnknown = false
		in.ToolName, in.Meta, in.InBatch = call.Name, call.Meta, inBatch
	}
	ctx, ws := Verify(in)
	rep := DecodeReport{
		Verdict: ctx.Verdict, HTTPStatus: ctx.HTTPStatus, RPCCode: ctx.RPCCode, Reason: ctx.Reason,
		Header: ctx.Header, Claims: ctx.Claims, Times: Times(ctx.Claims, args.Now),
		Steps: ctx.Steps, Warnings: ws, Tool: in.ToolName, Secrets: len(args.Secrets),
	}
	if args.Output == "json" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			fmt.Fprintf(stdout, "toolscope decode: %v\n", err)
			return ExitUsage
		}
		stdout.Write(append(b, '\n'))
	} else {
		writeDecodeText(stdout, rep, args)
	}
	if ctx.Verdict == model.VerdictRejected {
		return ExitRejected
	}
	return ExitValid
}

// ReadCall reads a tools/call request body (a JSON-RPC request, a batch
// holding one, or a bare params object) into its params.
func ReadCall(body []byte) (CallParams, bool, error) {
	msgs, batch, err := ParseMessages(body)
	if err != nil {
		return CallParams{}, false, err
	}
	for _, m := range msgs {
		if m.Kind == KindRequest && m.Method == MethodToolsCall {
			cp, err := ParseCallParams(m.Params)
			return cp, batch, err
		}
	}
	if !batch && msgs[0].Kind == KindInvalid {
		// Not JSON-RPC: maybe the params object alone.
		if cp, err := ParseCallParams(body); err == nil {
			return cp, false, nil
		}
	}
	return CallParams{}, batch, errors.New("no tools/call request in the body")
}

func writeDecodeText(w io.Writer, r DecodeReport, args DecodeArgs) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	hdr, _ := json.Marshal(r.Header)
	p("header   %s  signature %s\n", model.Sanitize(string(hdr)), model.Redacted)
	p("claims\n")
	for _, k := range sortedKeys(r.Claims) {
		v := r.Claims[k]
		line := describeFull(v)
		if k == "iat" || k == "exp" || k == "nbf" {
			if t, ok := numericDate(v); ok {
				line += "  " + t.UTC().Format(time.RFC3339)
			}
		}
		p("  %-16s %s\n", model.Sanitize(k), model.Sanitize(line))
	}
	if r.Times != nil {
		p("  %-16s %s\n", "", r.Times.Age)
	}
	switch {
	case len(args.Secrets) == 0:
		p("secrets  none: the token is decoded, not verified (set TOOLSCOPE_CONTEXT_SECRET or --secret-file)\n")
	case len(args.Secrets) > 1:
		p("secrets  %d (any one may verify)\n", len(args.Secrets))
	}
	if args.InstanceID == "" {
		p("aud      not compared: no --instance-id\n")
	}
	p("steps\n")
	n := 0
	for _, s := range r.Steps {
		mark := "✗"
		if s.Passed {
			mark = "✓"
		}
		label := s.Name
		switch s.Name {
		case StepSignature, StepTool, StepMeta, StepRun:
			n++
			label = fmt.Sprintf("%d %s", n, s.Name)
		}
		p("  %s %-12s %s\n", mark, label, model.Sanitize(s.Detail))
	}
	p("verdict  %s\n", r.Verdict)
	switch {
	case r.HTTPStatus != 0:
		p("answer   HTTP %d, JSON-RPC %d: %s\n", r.HTTPStatus, r.RPCCode, model.Sanitize(r.Reason))
	case r.Verdict == model.VerdictValid:
		p("answer   run the tool\n")
	case r.Reason != "":
		p("note     %s\n", model.Sanitize(r.Reason))
	}
	for _, wn := range r.Warnings {
		p("warning  %s: %s\n", wn.Code, model.Sanitize(wn.Message))
	}
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
