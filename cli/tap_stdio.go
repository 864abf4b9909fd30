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

	"toolscope/decoder"
	"toolscope/model"
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

// runStdioTap is `toolscope tap [flags] -- COMMAND [ARGS...]`.
func runStdioTap(args, command []string) int {
	fset := flag.NewFlagSet("tap", flag.ContinueOnError)
	var out outputFlags
	var live liveFlags
	name := fset.String("name", "", "the source's `NAME` in events (default: COMMAND's base name)")
	out.register(fset)
	out.registerMetrics(fset)
	live.registerStdio(fset)
	pos, code, ok := parseFlags(fset, tapStdioUsage, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) > 0:
		return usageError("tap", "unexpected argument %q before --", pos[0])
	case len(command) == 0 || command[0] == "":
		return usageError("tap", "name the COMMAND to run after --")
	case out.output != "" && out.output != "none":
		return usageError("tap", "--output %s: with -- COMMAND, stdout belongs to the MCP protocol; events go to --record FILE (watch it with 'toolscope replay --follow FILE')", out.output)
	case live.timeout < tap.MinTimeout || live.timeout > tap.MaxTimeout:
		return usageError("tap", "--timeout %v is outside 1s..1800s (the range the contract allows)", live.timeout)
	}
	cfg, code := stdioTapConfig(&live, *name)
	if code != 0 {
		return code
	}
	cfg.RecordBodyLimit = out.recordBodyLimit // a stdio tap always records
	if _, err := exec.LookPath(command[0]); err != nil {
		fmt.Fprintf(os.Stderr, "toolscope tap: %v\n", err)
		return 127 // as a shell says a command it cannot run; no recording made
	}
	out.redactor = model.NewRedactor()
	p, path, err := stdioRecorder(out, command[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope tap: %v\n", err)
		return 1
	}
	if out.record == "" {
		fmt.Fprintf(os.Stderr, "toolscope tap: recording to %s (watch it: toolscope replay --follow %s)\n", path, path)
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

// registerStdio registers the flags of liveFlags a stdio tap uses (no
// feeds, no listener, no --enforce: the tap only watches the pipes).
func (l *liveFlags) registerStdio(fs *flag.FlagSet) {
	fs.StringVar(&l.instanceID, "instance-id", "", "the MCP server instance `ID` a token's aud must name")
	fs.StringVar(&l.instanceName, "instance-name", "", "the instance's `NAME`, for agent-facing tool names (mcp__<server>__<tool>)")
	fs.Var(&l.secretFiles, "secret-file", "read a context secret from `FILE` (repeatable, for rotation); over stdio a token is read from _meta[\"X-AgentArea-Context\"]")
	fs.DurationVar(&l.timeout, "timeout", 300*time.Second, "the tool timeout `D` after which a call is flagged, 1s to 1800s (others exit 2)")
	fs.Int64Var(&l.maxParseBytes, "max-parse-bytes", 8<<20, "most bytes `N` of one message parsed on the side (default 8 MiB); a longer one is forwarded, not parsed")
}

// stdioTapConfig is the tap's verification settings from the flags and
// the environment.
func stdioTapConfig(live *liveFlags, name string) (tap.Config, int) {
	secrets, err := decoder.LoadSecrets(os.Getenv(decoder.SecretEnv), live.secretFiles)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope tap: %s\n", errText("tap", err))
		return tap.Config{}, 2
	}
	prefix, err := decoder.SoatPrefix(os.Getenv(decoder.SoatPrefixEnv))
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
		dir, err := stateDir()
		if err != nil {
			return nil, "", fmt.Errorf("--record: no FILE given and %v", err)
		}
		base := strings.Map(func(r rune) rune {
			if r == '/' || r < ' ' || r == 0x7f {
				return '_'
			}
			return r
		}, filepath.Base(command))
		pruneDefaultRecordings(dir)
		path := filepath.Join(dir, fmt.Sprintf("stdio-%s-%s-%d.jsonl", base, time.Now().UTC().Format("20060102T150405Z"), os.Getpid()))
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600) // a new file, never another run's
		if err != nil {
			return nil, "", fmt.Errorf("--record: %w", err)
		}
		f.Close()
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

// stateDir is toolscope's directory under the user's state directory
// ($XDG_STATE_HOME, else ~/.local/state), made if need be.
func stateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) { // the XDG spec ignores a relative path
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory: %v", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	dir := filepath.Join(base, "toolscope")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}
