package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"toolscope/model"
)

// onFlagSet, when set (by tests), sees every command's flags as it parses.
var onFlagSet func(*flagSet)

// parse parses flags placed anywhere among the positional arguments
// ("replay FILE --speed 0" and "replay --speed 0 FILE" both work); after
// "--" everything is positional. It prints the help on --help (ok=false,
// code 0) and a one-line reason on a bad flag (ok=false, code 2).
func (s *flagSet) parse(usageText string, args []string) (positional []string, code int, ok bool) {
	if onFlagSet != nil {
		onFlagSet(s)
	}
	s.SetOutput(io.Discard)
	for {
		err := s.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Print(commandHelp(s, usageText))
			return nil, 0, false
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolscope %s: %s (run 'toolscope help %s')\n", s.Name(), s.flagError(err), s.helpName)
			return nil, 2, false
		}
		rest := s.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), 0, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func usageError(cmd, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "toolscope %s: %s (run 'toolscope help %s')\n", cmd, fmt.Sprintf(format, a...), cmd)
	return 2
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// outputFlags are the flags every command that shows events shares (the
// Output group).
type outputFlags struct {
	output          string
	record          string
	maxCalls        int
	maxRunningCalls int
	otlp            string
	mcp             mcpFlags
	metricsListen   string // --metrics-listen, on tap, watch and demo (metrics.go)
	// --record-body-limit, --record-max-size, --record-keep (record.go)
	recordBodyLimit int64
	recordMaxSizeMB int
	recordKeep      int
	redact          multiFlag // --redact: more credential names
	// redactor is the run's redaction policy, the hub's (set by the live
	// skeleton before newPipeline).
	redactor *model.Redactor
}

// registerMode registers --output, for the commands that own stdout (all
// but the stdio tap, whose stdout is the protocol's).
func (o *outputFlags) registerMode(fs *flag.FlagSet) {
	fs.StringVar(&o.output, "output", "", "`MODE`: tui, json or text (default: tui on a terminal, json otherwise)")
}

// register registers the Output group's other flags: where events go
// besides stdout, and what is kept in memory.
func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.record, "record", "", "also write every event as JSON lines to `FILE` (secrets redacted)")
	o.registerRecording(fs)
	fs.StringVar(&o.otlp, "otlp", "", "export every call as OpenTelemetry spans over OTLP/HTTP to `URL` (+ /v1/traces); OTEL_EXPORTER_OTLP_ENDPOINT and _HEADERS work too")
	fs.IntVar(&o.maxCalls, "max-calls", model.DefaultOptions().MaxFinishedCalls, "keep `N` finished calls in memory (oldest evicted first)")
	fs.Var(&o.redact, "redact", "also redact the values named `NAME` (headers, keys at any depth, flags, query parameters; repeatable; see docs/security.md)")
	fs.IntVar(&o.maxRunningCalls, "max-running-calls", model.DefaultMaxRunningCalls, "keep at most `N` running calls in memory (past it the oldest is ended; see docs/security.md, Memory ceiling)")
}

func (o *outputFlags) resolve(cmd string) (string, bool) {
	switch o.output {
	case "":
		if stdoutIsTerminal() {
			return "tui", true
		}
		return "json", true
	case "tui", "json", "text":
		return o.output, true
	}
	usageError(cmd, "--output must be tui, json or text, not %q", o.output)
	return "", false
}

// stdinIsTerminal is a variable so a test can play a terminal.
var stdinIsTerminal = func() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func stdoutIsTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
