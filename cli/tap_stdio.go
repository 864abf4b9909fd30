package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"toolscope/decoder/soat"
	"toolscope/decoder/token"
	"toolscope/model"
	"toolscope/model/userfiles"
	"toolscope/stream/tap"
)

const tapStdioUsage = `Usage: toolscope tap [flags] -- COMMAND [ARGS...]

Runs COMMAND, an MCP server that speaks JSON-RPC on stdin and stdout, as a
child, and stands between it and the MCP client that started toolscope in
its place: every byte passes unchanged both ways, the child's stderr goes to
toolscope's stderr, SIGINT, SIGTERM and SIGHUP are passed on, and toolscope
exits with the child's exit code. Each tools/call is reported as the HTTP
tap reports it (progress, result, cancellation, warnings).

Standard output belongs to the protocol: events go to --record FILE only
(default: a new file under $XDG_STATE_HOME/toolscope/ or
~/.local/state/toolscope/, its path said once on stderr). Watch it live from
another terminal with 'toolscope replay --follow FILE'.

{{flags}}
Examples:
  MCP client configuration:
    {"command": "toolscope", "args": ["tap", "--record", "/tmp/s.jsonl", "--", "my-server", "--stdio"]}
  In another terminal:
    toolscope replay --follow /tmp/s.jsonl
`

// stdioTapCommand is `toolscope tap [flags] -- COMMAND [ARGS...]`: a tap
// on a stdio server's pipes.
type stdioTapCommand struct {
	fs   *flagSet
	out  outputFlags
	live liveFlags
	name string
}

func newStdioTapCommand() *stdioTapCommand {
	c := &stdioTapCommand{fs: newFlagSet("tap")}
	c.fs.helpName = "tap --"
	c.fs.StringVar(&c.name, "name", "", "the source's `NAME` in events (default: COMMAND's base name)")
	c.fs.group(groupOutput, c.out.register) // no --output: stdout is the protocol's
	c.fs.group(groupOutput, c.out.registerMetrics)
	c.fs.group(groupCallChecks, c.live.registerCallChecks)
	c.fs.group(groupMCP, c.out.mcp.register)
	return c
}

func (c *stdioTapCommand) flags() *flagSet { return c.fs }

// Run runs COMMAND with the tap on its pipes; args are the flags before
// "--". It returns the child's exit code (127 when it cannot be run).
func (c *stdioTapCommand) Run(args, command []string) int {
	c.fs.refused = notForStdio(newTapCommand().fs, c.fs)
	pos, code, ok := c.fs.parse(tapStdioUsage, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) > 0:
		return stdioUsageError("unexpected argument %q before --", pos[0])
	case len(command) == 0 || command[0] == "":
		return stdioUsageError("name the COMMAND to run after --")
	case c.live.timeout < tap.MinTimeout || c.live.timeout > tap.MaxTimeout:
		return stdioUsageError("--timeout %v is outside 1s..1800s (the range the contract allows)", c.live.timeout)
	}
	if err := c.out.mcp.check(); err != nil {
		return stdioUsageError("%v", err)
	}
	cfg, code := stdioTapConfig(&c.live, c.name)
	if code != 0 {
		return code
	}
	cfg.RecordBodyLimit = c.out.bodyLimit() // a stdio tap always records
	if _, err := exec.LookPath(command[0]); err != nil {
		fmt.Fprintf(os.Stderr, "toolscope tap: %v\n", err)
		return 127 // as a shell says a command it cannot run; no recording made
	}
	c.out.redactor = model.NewRedactor(model.RedactionConfig{Names: c.out.redact, Secrets: secretStrings(cfg.Secrets)})
	p, path, err := stdioRecorder(c.out, command[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope tap: %v\n", err)
		return 1
	}
	if c.out.record == "" {
		fmt.Fprintf(os.Stderr, "toolscope tap: recording to %s (watch it: toolscope replay --follow %s)\n", path, path)
	}
	if p.mcp != nil { // it serves while the child runs: the tap's life is its client's
		fmt.Fprintf(os.Stderr, "toolscope tap: serving MCP at %s\n", p.mcp.URL())
	}
	exit, err := tap.RunStdio(context.Background(), cfg, command, os.Stdin, os.Stdout, os.Stderr, p.hub)
	p.close("tap")  // a write error is said once
	if err != nil { // the child did not start
		fmt.Fprintf(os.Stderr, "toolscope tap: %s\n", errText("tap", err))
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return 127 // as a shell says a command it cannot run
		}
		return 2
	}
	return exit
}

// secretStrings are the context secrets as the redactor takes them.
func secretStrings(secrets [][]byte) []string {
	out := make([]string, len(secrets))
	for i, s := range secrets {
		out[i] = string(s)
	}
	return out
}

func stdioUsageError(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "toolscope tap: %s (run 'toolscope help tap --')\n", fmt.Sprintf(format, a...))
	return 2
}

// stdioRefusals say why a flag of the HTTP tap does not apply to -- COMMAND.
var stdioRefusals = map[string]string{
	"output":  "stdout belongs to the MCP protocol; events go to --record FILE, to watch with 'toolscope replay --follow FILE'",
	"enforce": "the stdio tap only watches the pipes, it does not answer for the server",
}

// stdioGroupRefusals say it for a whole group ("": the HTTP tap's own flags).
var stdioGroupRefusals = map[string]string{
	groupFeeds: "a stdio tap has no feeds; run 'toolscope watch' beside it",
	groupTaps:  "there is no HTTP: COMMAND is the server, on its stdin and stdout",
	"":         "there is no HTTP: COMMAND is the server, on its stdin and stdout",
}

// notForStdio says, for each flag of the HTTP tap the stdio tap does not
// take, why.
func notForStdio(httpTap, stdio *flagSet) map[string]string {
	out := map[string]string{}
	httpTap.VisitAll(func(f *flag.Flag) {
		if stdio.Lookup(f.Name) != nil {
			return
		}
		why, ok := stdioRefusals[f.Name]
		if !ok {
			why = stdioGroupRefusals[httpTap.groupOf[f.Name]]
		}
		out[f.Name] = "--" + f.Name + " does not apply to -- COMMAND: " + why
	})
	return out
}

// onlyForStdio says, for each flag only the stdio tap takes, so.
func onlyForStdio(httpTap, stdio *flagSet) map[string]string {
	out := map[string]string{}
	stdio.VisitAll(func(f *flag.Flag) {
		if httpTap.Lookup(f.Name) == nil {
			out[f.Name] = "--" + f.Name + " applies only to a stdio server, as in 'toolscope tap [flags] -- COMMAND'"
		}
	})
	return out
}

// stdioTapConfig is the tap's verification settings from the flags and
// the environment.
func stdioTapConfig(live *liveFlags, name string) (tap.Config, int) {
	secrets, err := token.LoadSecrets(os.Getenv(token.SecretEnv), live.secretFiles)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope tap: %s\n", errText("tap", err))
		return tap.Config{}, 2
	}
	prefix, err := soat.Prefix(os.Getenv(soat.PrefixEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope tap: %s\n", errText("tap", err))
		return tap.Config{}, 2
	}
	return tap.Config{Name: name, InstanceID: live.instanceID, InstanceName: live.instanceName, Secrets: secrets,
		Timeout: live.timeout, MaxParseBytes: live.maxParseBytes, SoatPrefix: prefix}, 0
}

// stdioRecorder is the pipeline of a stdio tap: no stdout (it belongs to
// the protocol), the recording (--record, or a new file in the state
// directory) and --otlp, as every command builds them (newPipeline).
func stdioRecorder(out outputFlags, command string) (*pipeline, string, error) {
	if out.record == "" {
		dir, err := userfiles.StateDir("")
		if err != nil {
			return nil, "", fmt.Errorf("--record: no FILE given and %v", err)
		}
		base := strings.Map(func(r rune) rune {
			if r == '/' || r < ' ' || r == 0x7f {
				return '_'
			}
			return r
		}, filepath.Base(command))
		// A new file, never another run's, in a directory only the user
		// can enter: the pipeline opening it again by its path opens it.
		f, path, err := userfiles.Create(dir, fmt.Sprintf("stdio-%s-%s-%d", base, time.Now().UTC().Format("20060102T150405Z"), os.Getpid()), ".jsonl")
		if err != nil {
			return nil, "", fmt.Errorf("--record: no FILE given and %w", err)
		}
		f.Close()
		pruneDefaultRecordings(dir) // the directory is the user's own: checked by Create
		out.record = path
		p, err := newPipeline(out, "none")
		if err != nil {
			os.Remove(path) // nothing was recorded in it
		}
		return p, path, err
	}
	p, err := newPipeline(out, "none")
	return p, out.record, err
}
