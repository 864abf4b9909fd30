package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"toolscope/decoder/token"
	"toolscope/demo"
	"toolscope/model"
	"toolscope/stream/probe"
	"toolscope/ui"
)

const probeUsage = `Usage: toolscope probe URL --instance-id ID [--tool NAME] [--args JSON] [--output tui|json|text]
                       [--junit FILE] [--only CASES] [--list] [--strict]
       toolscope probe --demo [flags]

Checks that the MCP server at URL keeps the AgentArea tool context contract
before the platform relies on it: one tools/call per case, each exactly as
the platform sends it (a new connection, 2026-07-28 headers and _meta, a
fresh context token), with one thing wrong, and each answer compared with
the contract's (HTTP status, JSON-RPC code, the request id echoed, whether
the tool ran). --list prints the cases without sending anything.

The valid case (and the few cases the contract accepts) DO run the tool:
name a harmless one with --tool (default: the first of tools/list) and its
arguments with --args. Rejected cases must not run it.

The context secret comes from TOOLSCOPE_CONTEXT_SECRET or --secret-file; the
instance's static credential header ("Authorization: Bearer ...",
"X-API-Key: ...") from TOOLSCOPE_CREDENTIAL_HEADER or --credential-file;
never from arguments. --demo probes the demo's own MCP server instead.

On a terminal the screen (--output tui, the default there) fills in each
case as it ends: enter shows the request sent (secrets redacted) and the
answer, the last line the exit code; it stays until q. Without a terminal
--output tui prints the text table.

Exit status: 0 every required case passed, 1 one failed (or the server
could not be probed, or the probe was stopped early), 2 usage.

{{flags}}
Examples:
  TOOLSCOPE_CONTEXT_SECRET=... TOOLSCOPE_CREDENTIAL_HEADER='Authorization: Bearer ...' \
    toolscope probe https://mcp.example.com/mcp --instance-id 7c0d5a4e-... --tool ping --junit probe.xml
  toolscope probe --list
  toolscope probe --demo --output text
`

// credentialEnv names the variable holding the static credential header.
const credentialEnv = probe.CredentialEnv

// probeFlags are the probe command's flags.
type probeFlags struct {
	instanceID, tool, args, output, junit, only, credentialFile string
	list, strict, demo                                          bool
	timeout                                                     time.Duration
	secretFiles, redact                                         multiFlag
}

func (f *probeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.instanceID, "instance-id", "", "the MCP server instance `ID` tokens are minted for (their aud)")
	fs.StringVar(&f.tool, "tool", "", "the `NAME` of a harmless tool a valid token must run (default: the first of tools/list)")
	fs.StringVar(&f.args, "args", "{}", "the tool's arguments, a `JSON` object")
	fs.StringVar(&f.output, "output", "", "`MODE`: tui (the text table when stdout is no terminal), json or text (default: tui on a terminal, json otherwise)")
	fs.StringVar(&f.junit, "junit", "", "also write the results as JUnit XML to `FILE`")
	fs.StringVar(&f.only, "only", "", "run only these comma-separated `CASES` (see --list)")
	fs.StringVar(&f.credentialFile, "credential-file", "", "read the static credential header, one line \"Name: value\", from `FILE`")
	fs.BoolVar(&f.list, "list", false, "print the cases and exit without sending anything")
	fs.BoolVar(&f.strict, "strict", false, "make the informative cases the contract does not require (idempotency, future iat) required")
	fs.BoolVar(&f.demo, "demo", false, "probe the demo's own MCP server, started on loopback")
	fs.DurationVar(&f.timeout, "case-timeout", 30*time.Second, "wait at most `D` for each case's answer")
	fs.Var(&f.redact, "redact", "also redact the values named `NAME` in everything written (repeatable)")
	fs.Var(&f.secretFiles, "secret-file", "read the context secret from `FILE` (the first secret given signs)")
}

// probeCommand is `toolscope probe`: a server checked against the
// contract, case by case.
type probeCommand struct {
	fs *flagSet
	f  probeFlags
}

func newProbeCommand() *probeCommand {
	c := &probeCommand{fs: newFlagSet("probe")}
	c.f.register(c.fs.FlagSet)
	return c
}

func (c *probeCommand) flags() *flagSet { return c.fs }

// Run probes the server; 0 when every required case passed, 1 otherwise.
func (c *probeCommand) Run(args []string) int {
	pos, code, ok := c.fs.parse(probeUsage, args)
	if !ok {
		return code
	}
	f := &c.f
	var only []string
	if f.only != "" {
		only = strings.Split(f.only, ",")
	}
	cases, err := probe.Select(only)
	if err != nil {
		return usageError("probe", "--only: %v", err)
	}
	if f.list {
		probe.WriteList(os.Stdout, cases, f.strict)
		return 0
	}
	cfg, cleanup, code := f.config(pos, only)
	if cleanup != nil {
		defer cleanup()
	}
	if code != 0 {
		return code
	}
	return probeAndReport(cfg, *f, cases)
}

// config builds the probe's configuration from the flags, the environment
// and the files; code is non-zero on a usage error.
func (f *probeFlags) config(pos []string, only []string) (probe.Config, func(), int) {
	cfg := probe.Config{Only: only, Strict: f.strict, Timeout: f.timeout, Tool: f.tool, Redact: f.redact}
	if !json.Valid([]byte(f.args)) || !strings.HasPrefix(strings.TrimSpace(f.args), "{") {
		return cfg, nil, usageError("probe", "--args must be a JSON object")
	}
	cfg.Args = json.RawMessage(f.args)
	if f.output != "" && f.output != "tui" && f.output != "json" && f.output != "text" {
		return cfg, nil, usageError("probe", "--output must be tui, json or text, not %q", f.output)
	}
	if f.demo {
		if len(pos) > 0 {
			return cfg, nil, usageError("probe", "--demo takes no URL")
		}
		s := demo.StartServer(1)
		cfg.URL, cfg.InstanceID, cfg.Secret = s.URL, s.InstanceID, s.Secret
		cfg.Credential = probe.Credential{Name: "Authorization", Value: "Bearer " + s.Credential}
		if cfg.Tool == "" {
			cfg.Tool, cfg.Args = s.Tool, s.Args
		}
		return cfg, s.Close, 0
	}
	if len(pos) != 1 {
		return cfg, nil, usageError("probe", "want one URL, got %d arguments", len(pos))
	}
	if u, err := url.Parse(pos[0]); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, nil, usageError("probe", "%s is not an http(s) URL", probe.ShownURL(pos[0]))
	}
	cfg.URL = pos[0]
	if cfg.InstanceID = f.instanceID; cfg.InstanceID == "" {
		return cfg, nil, usageError("probe", "--instance-id is required (the aud of every token)")
	}
	secrets, err := token.LoadSecrets(os.Getenv(token.SecretEnv), f.secretFiles)
	if err != nil {
		return cfg, nil, usageError("probe", "%v", err)
	}
	if len(secrets) == 0 {
		return cfg, nil, usageError("probe", "no context secret: set %s or give --secret-file", token.SecretEnv)
	}
	cfg.Secret = secrets[0]
	if cfg.Credential, err = loadCredential(os.Getenv(credentialEnv), f.credentialFile); err != nil {
		return cfg, nil, usageError("probe", "%v", err)
	}
	return cfg, nil, 0
}

// loadCredential reads "Name: value" from the environment or a file (the
// file wins); errors never contain the value.
func loadCredential(env, file string) (probe.Credential, error) {
	line, from := env, credentialEnv
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return probe.Credential{}, fmt.Errorf("--credential-file: %v", err)
		}
		line, from = string(b), "--credential-file "+file
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return probe.Credential{}, nil
	}
	name, value, ok := strings.Cut(line, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || !headerToken(name) || value == "" || strings.ContainsAny(value, "\r\n\x00") {
		return probe.Credential{}, fmt.Errorf("%s must be one header line, \"Name: value\"", from)
	}
	return probe.Credential{Name: http.CanonicalHeaderKey(name), Value: value}, nil
}

// probeAndReport runs the probe with its results on the screen or printed
// as each case comes, then writes the JUnit file; it returns the exit code.
func probeAndReport(cfg probe.Config, f probeFlags, cases []probe.Case) int {
	output := f.output
	switch {
	case output == "" && stdoutIsTerminal():
		output = "tui"
	case output == "":
		output = "json"
	case output == "tui" && !stdoutIsTerminal():
		output = "text" // the screen needs a terminal; a pipe or CI log gets the table
	}
	var junit io.WriteCloser
	if f.junit != "" {
		var err error
		if junit, err = os.Create(f.junit); err != nil {
			// A file that cannot be written is a failure (1), not a usage error.
			fmt.Fprintf(os.Stderr, "toolscope probe: --junit: %v\n", err)
			return 1
		}
		defer junit.Close()
	}
	ctx, stop := signalContext()
	defer stop()
	if output == "tui" {
		return probeOnScreen(ctx, cfg, plannedCases(cases, f.strict), junit)
	}
	if output == "json" {
		cfg.OnCase = func(r probe.Result) { _ = probe.WriteCaseJSON(os.Stdout, r) }
	} else {
		header := false
		cfg.OnCase = func(r probe.Result) {
			if !header {
				probe.WriteTextHeader(os.Stdout, cfg.URL, cfg.Tool)
				header = true
			}
			probe.WriteTextCase(os.Stdout, r)
		}
	}
	rep, err := probe.Run(ctx, cfg)
	rep = withStop(rep, err, len(cases))
	code, why := concludeProbe(rep, junit)
	switch {
	case output == "json":
		_ = probe.WriteSummaryJSON(os.Stdout, rep)
	case len(rep.Results) > 0:
		probe.WriteTextSummary(os.Stdout, rep)
	}
	if rep.Stop != nil {
		fmt.Fprintf(os.Stderr, "toolscope probe: %s\n", rep.Stop.Error())
	}
	if why != "" {
		fmt.Fprintf(os.Stderr, "toolscope probe: %s\n", why)
	}
	return code
}

// withStop is the report of a run that ended with err: a probe.Stop as
// probe.Run said it, else why it ended early (stopped, or could not run).
func withStop(rep probe.Report, err error, planned int) probe.Report {
	var st *probe.Stop
	switch {
	case err == nil || rep.Stop != nil:
	case errors.As(err, &st):
		rep.Stop = st
	case errors.Is(err, context.Canceled):
		rep.Stop = &probe.Stop{Case: probe.CaseStopped, What: "the probe was stopped",
			Cause: fmt.Sprintf("after %d of %d cases", len(rep.Results), planned)}
	default:
		rep.Stop = &probe.Stop{Case: probe.CaseStopped, What: "could not probe " + probe.ShownURL(rep.URL), Cause: model.Sanitize(err.Error())}
	}
	return rep
}

// concludeProbe writes the JUnit file, whatever the run came to (never an
// empty file), and says the exit code and, when the file could not be
// written, why.
func concludeProbe(rep probe.Report, junit io.Writer) (int, string) {
	if junit != nil {
		jerr := probe.WriteJUnit(junit, rep)
		if c, ok := junit.(io.Closer); ok && jerr == nil {
			jerr = c.Close() // a file cut short by a full disk says so here
		}
		if jerr != nil {
			return 1, "--junit: " + jerr.Error()
		}
	}
	if !rep.OK() {
		return 1, ""
	}
	return 0, ""
}

// headerToken says whether s is a valid header name (RFC 9110 token).
func headerToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

// probeScreenInput and probeScreenOutput, when set, play the terminal for
// the probe's screen (a test's keys and frames); nil: stdin and stdout.
var (
	probeScreenInput  io.Reader
	probeScreenOutput io.Writer
)

// probeOnScreen runs the probe under its screen, which stays until the user
// quits; the exit code is the one the screen's last line showed. The text
// summary is printed after the screen closes, so the verdict stays in the
// terminal's scrollback.
func probeOnScreen(ctx context.Context, cfg probe.Config, planned []model.ProbeCase, junit io.Writer) int {
	var (
		rep  probe.Report
		code int
		why  string
		done bool // the JUnit file was written
	)
	opts := ui.ProbeOptions{Target: probe.ShownURL(cfg.URL), Tool: model.Sanitize(cfg.Tool), Cases: planned,
		Input: probeScreenInput, Output: probeScreenOutput}
	err := ui.RunProbe(ctx, opts, func(ctx context.Context, caseDone func(model.ProbeCase)) model.ProbeEnd {
		cfg.OnCase = func(r probe.Result) { caseDone(screenCase(r, cfg.URL)) }
		var runErr error
		rep, runErr = probe.Run(ctx, cfg)
		rep = withStop(rep, runErr, len(planned))
		code, why = concludeProbe(rep, junit)
		done = true
		end := model.ProbeEnd{Tool: rep.Tool, ExitCode: code, Err: why, Duration: rep.Duration}
		if rep.Stop != nil && why == "" {
			end.Err = rep.Stop.Error()
		}
		return end
	})
	if err != nil {
		if !done { // the screen failed before the probe ran: the file still says why
			rep = withStop(probe.Report{URL: cfg.URL}, fmt.Errorf("the screen failed: %w", err), len(planned))
			concludeProbe(rep, junit)
		}
		fmt.Fprintf(os.Stderr, "toolscope probe: %v\n", err)
		return 1
	}
	if len(rep.Results) > 0 && (rep.Stop == nil || rep.Stop.Case == probe.CaseStopped) {
		probe.WriteTextSummary(os.Stdout, rep)
	}
	if rep.Stop != nil {
		fmt.Fprintf(os.Stderr, "toolscope probe: %s\n", rep.Stop.Error())
	}
	if why != "" {
		fmt.Fprintf(os.Stderr, "toolscope probe: %s\n", why)
	}
	return code
}

// plannedCases are the screen's rows before anything is sent.
func plannedCases(cases []probe.Case, strict bool) []model.ProbeCase {
	out := make([]model.ProbeCase, len(cases))
	for i, c := range cases {
		out[i] = model.ProbeCase{ID: c.ID, Title: c.Title, Expected: expectedText(c.Expect, c.Also),
			Required: c.Level == probe.Required || c.Level == probe.Recommended && strict}
	}
	return out
}

// screenCase is a finished case as the screen shows it.
func screenCase(r probe.Result, target string) model.ProbeCase {
	actual := r.Actual.String()
	if r.Skipped {
		actual = "-"
	}
	return model.ProbeCase{ID: r.Case, Title: r.Title, Required: r.Required, Expected: expectedText(r.Expected, r.Also),
		Done: true, Actual: actual, Pass: r.Pass, Skipped: r.Skipped, ToolRan: r.Ran, Message: r.Message,
		Request: requestText(target, r.Exchange), Answer: indentedJSON(r.Exchange.ResponseBody), Duration: r.Duration}
}

// expectedText is the contract's answer as the text table says it.
func expectedText(expect probe.Answer, also *probe.Answer) string {
	if also != nil {
		return expect.String() + " or " + also.String()
	}
	return expect.String()
}

// requestText is the request a case sent, as the probe recorded it (the
// credential and the token's signature already redacted): request line,
// headers in order, then the body.
func requestText(target string, x probe.Exchange) string {
	if len(x.RequestHeader) == 0 && x.RequestBody == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("POST " + probe.ShownURL(target) + "\n")
	for _, name := range slices.Sorted(maps.Keys(x.RequestHeader)) {
		b.WriteString(name + ": " + x.RequestHeader[name] + "\n")
	}
	b.WriteString("\n" + indentedJSON(x.RequestBody))
	return b.String()
}

// indentedJSON indents a JSON body for reading, or each JSON data line of
// an event stream; anything else (a body cut at 4 KiB) is kept as it is.
func indentedJSON(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") == nil {
		return b.String()
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if v, ok := strings.CutPrefix(l, "data:"); ok {
			b.Reset()
			if json.Indent(&b, []byte(strings.TrimSpace(v)), "", "  ") == nil {
				lines[i] = "data: " + b.String()
			}
		}
	}
	return strings.Join(lines, "\n")
}
