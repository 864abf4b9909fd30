// Command toolscope is a terminal live monitor for AI-agent tool calls.
// This file parses flags and wires the packages; the logic lives in them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"toolscope/model"
	"toolscope/stream/replay"
)

const usage = `toolscope: a live monitor for AI-agent tool calls

Usage:
  toolscope COMMAND [flags]

Commands:
%s
Run 'toolscope COMMAND --help' for a command's flags and examples.
`

// command is one subcommand: its summary, usage text and runner. A runner
// returns the process exit code.
type command struct {
	name, summary, usage string
	run                  func(args []string) int
}

func commands() []command {
	return []command{
		{"replay", "play a recorded session (JSON lines) back", replayUsage, runReplay},
	}
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		var list strings.Builder
		for _, c := range cmds {
			fmt.Fprintf(&list, "  %-8s %s\n", c.name, c.summary)
		}
		fmt.Printf(usage, list.String())
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range cmds {
		if c.name == args[0] {
			return c.run(args[1:])
		}
	}
	fmt.Fprintf(os.Stderr, "toolscope: unknown command %q (run 'toolscope --help')\n", args[0])
	return 2
}

// parseFlags parses flags placed anywhere among the positional arguments
// ("replay FILE --speed 0" and "replay --speed 0 FILE" both work). It prints
// the usage on --help (ok=false, code 0) and a one-line reason on a bad flag
// (ok=false, code 2).
func parseFlags(fs *flag.FlagSet, usageText string, args []string) (positional []string, code int, ok bool) {
	fs.SetOutput(io.Discard)
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Print(usageText)
			return nil, 0, false
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolscope %s: %v (run 'toolscope %s --help')\n", fs.Name(), err, fs.Name())
			return nil, 2, false
		}
		rest := fs.Args()
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
	fmt.Fprintf(os.Stderr, "toolscope %s: %s (run 'toolscope %s --help')\n", cmd, fmt.Sprintf(format, a...), cmd)
	return 2
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// outputFlags are the flags every command that shows events shares.
type outputFlags struct {
	output   string
	record   string
	maxCalls int
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.output, "output", "", "tui, json or text (default: tui on a terminal, json otherwise)")
	fs.StringVar(&o.record, "record", "", "also write every event as JSON lines to `FILE` (secrets redacted)")
	fs.IntVar(&o.maxCalls, "max-calls", model.DefaultOptions().MaxFinishedCalls, "finished calls kept in memory (oldest evicted first)")
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

func stdoutIsTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// pipeline is the store and its writers for one run.
type pipeline struct {
	store  *model.Store
	hub    *model.Hub
	output string
}

// newPipeline builds the store, the stdout writer for json/text output and
// the --record writer.
func newPipeline(o outputFlags, output string) (*pipeline, error) {
	opts := model.DefaultOptions()
	if o.maxCalls > 0 {
		opts.MaxFinishedCalls = o.maxCalls
	}
	p := &pipeline{store: model.NewStore(opts), output: output}
	p.hub = model.NewHub(p.store)
	switch output {
	case "json":
		p.hub.AddWriter(model.NewWriter("stdout", os.Stdout, model.FormatJSON, true, nil))
	case "text":
		p.hub.AddWriter(model.NewWriter("stdout", os.Stdout, model.FormatText, true, nil))
	}
	if o.record != "" {
		f, err := os.OpenFile(o.record, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return nil, fmt.Errorf("--record: %w", err)
		}
		p.hub.AddWriter(model.NewWriter("--record "+o.record, f, model.FormatJSON, false, f))
	}
	p.hub.OnWriteError = func(err error) {
		if output != "tui" {
			fmt.Fprintf(os.Stderr, "toolscope: %v (monitoring goes on)\n", err)
		}
	}
	return p, nil
}

// signalContext ends on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// runWithScreen runs work in the background and, for --output tui, the
// screen in the foreground until the user quits; for json/text it waits
// for work. It returns work's error.
func (p *pipeline) runWithScreen(ctx context.Context, work func(context.Context) error, openCall string) error {
	if p.output != "tui" {
		return work(ctx)
	}
	fmt.Fprintln(os.Stderr, "toolscope: the screen is not built yet; showing text lines instead")
	p.hub.AddWriter(model.NewWriter("stdout", os.Stdout, model.FormatText, true, nil))
	return work(ctx)
}

const replayUsage = `Usage: toolscope replay FILE [--speed F] [--output tui|json|text] [--call ID]

Plays a recorded session (the JSON lines --record and --output json write)
back with its original timing, scaled by --speed. Idle gaps over 5 s are
shortened to 5 s. A malformed line becomes a warning naming its line number;
the rest still plays.

Flags:
  --speed F        timing scale: 2 plays twice as fast, 0 as fast as possible (default 1)
  --output MODE    tui, json or text (default: tui on a terminal, json otherwise)
  --call ID        open this call's detail view (tui): an id as "task_id/tool_call_id" or a tool_call_id
  --record FILE    also write the replayed events to FILE

Examples:
  toolscope replay testdata/session.jsonl --output text --speed 0
  toolscope replay session.jsonl --call call_sheets
`

func runReplay(args []string) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	speed := fs.Float64("speed", 1, "")
	callID := fs.String("call", "", "")
	var out outputFlags
	out.register(fs)
	pos, code, ok := parseFlags(fs, replayUsage, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return usageError("replay", "want exactly one FILE, got %d arguments", len(pos))
	}
	if *speed < 0 {
		return usageError("replay", "--speed must be 0 or more")
	}
	output, ok := out.resolve("replay")
	if !ok {
		return 2
	}
	if _, err := os.Stat(pos[0]); err != nil {
		fmt.Fprintf(os.Stderr, "toolscope replay: %v\n", err)
		return 1
	}
	p, err := newPipeline(out, output)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope replay: %v\n", err)
		return 1
	}
	ctx, stop := signalContext()
	defer stop()
	err = p.runWithScreen(ctx, func(ctx context.Context) error {
		return replay.Run(ctx, pos[0], replay.Options{Speed: *speed}, p.hub)
	}, *callID)
	if cerr := p.hub.Close(); cerr != nil && err == nil {
		fmt.Fprintf(os.Stderr, "toolscope replay: %v\n", cerr)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "toolscope replay: %v\n", err)
		return 1
	}
	return 0
}

