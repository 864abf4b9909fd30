package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/token"
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
	Token      string      // the token ("-" already read from stdin by the caller)
	Call       []byte      // optional: the tools/call request body (or just its params)
	Header     http.Header // with Call: the request's other headers
	InstanceID string
	Secrets    [][]byte // from token.SecretEnv and --secret-file, never argv
	Output     string   // "text" (default) or "json"
	Now        time.Time
	// Stderr receives usage errors when set (stdout otherwise).
	Stderr io.Writer
}

// RunDecode decodes and verifies one token (decoder.Decode) and prints the
// header, the claims, each step, the verdict and the answer a server must
// give. It returns the exit code: 0 valid or unverified, 1 rejected, 2 usage.
func RunDecode(args DecodeArgs, stdout io.Writer) (exitCode int) {
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
	rep, err := decoder.Decode(decoder.DecodeInput{Token: args.Token, Call: args.Call, Header: args.Header,
		InstanceID: args.InstanceID, Secrets: args.Secrets, Now: args.Now})
	var callErr *decoder.CallError
	switch {
	case errors.Is(err, decoder.ErrNoToken):
		fmt.Fprintln(errOut, "toolscope decode: no token (give it as an argument, or - to read it from stdin)")
		return ExitUsage
	case errors.As(err, &callErr):
		fmt.Fprintf(errOut, "toolscope decode: --call: %s\n", model.Sanitize(callErr.Err.Error()))
		return ExitUsage
	case err != nil:
		fmt.Fprintf(errOut, "toolscope decode: %s\n", model.Sanitize(err.Error()))
		return ExitUsage
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
	if rep.Verdict == model.VerdictRejected {
		return ExitRejected
	}
	return ExitValid
}

func writeDecodeText(w io.Writer, r decoder.DecodeReport, args DecodeArgs) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	hdr, _ := json.Marshal(r.Header)
	p("header   %s  signature %s\n", model.Sanitize(string(hdr)), model.Redacted)
	p("claims\n")
	for _, k := range slices.Sorted(maps.Keys(r.Claims)) {
		p("  %-16s %s\n", model.Sanitize(k), model.Sanitize(token.ClaimText(k, r.Claims[k])))
	}
	if r.Times != nil {
		p("  %-16s %s\n", "", r.Times.Age)
	}
	switch {
	case len(args.Secrets) == 0:
		p("secrets  none: the token is decoded, not verified (set %s or --secret-file)\n", token.SecretEnv)
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
		case token.StepSignature, token.StepTool, token.StepMeta, token.StepRun:
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
