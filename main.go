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
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"toolscope/decoder"
	"toolscope/demo"
	"toolscope/model"
	"toolscope/stream/feed"
	"toolscope/stream/replay"
	"toolscope/stream/tap"
	"toolscope/ui"
)

const usage = `toolscope: a live monitor for AI-agent tool calls

Usage:
  toolscope COMMAND [flags]

Commands:
%s
Run 'toolscope COMMAND --help' for a command's flags and examples,
'toolscope --version' for the version.
`

// command is one subcommand: its summary, usage text and runner. A runner
// returns the process exit code.
type command struct {
	name, summary, usage string
	run                  func(args []string) int
}

func commands() []command {
	return []command{
		{"demo", "run the embedded platform, MCP server, tap and feed, and watch them", demoUsage, runDemo},
		{"watch", "watch AgentArea task feeds live", watchUsage, runWatch},
		{"tap", "run a tap proxy in front of an MCP server", tapUsage, runTap},
		{"replay", "play a recorded session (JSON lines) back", replayUsage, runReplay},
		{"decode", "decode and verify one X-AgentArea-Context token", decodeUsage, runDecode},
	}
}

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit makes the collector work harder near it, so the
		// process stays close to what it holds (see README: Memory ceiling).
		debug.SetMemoryLimit(softMemoryLimit)
	}
	os.Exit(run(os.Args[1:]))
}

// softMemoryLimit is the Go heap size the collector keeps under when it
// can; the documented ceiling (512 MiB) leaves room above it for stacks and
// the runtime.
const softMemoryLimit = 384 << 20

func run(args []string) int {
	cmds := commands()
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Println(version())
		return 0
	}
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

// onFlagSet, when set (by tests), sees every command's FlagSet.
var onFlagSet func(*flag.FlagSet)

// parseFlags parses flags placed anywhere among the positional arguments
// ("replay FILE --speed 0" and "replay --speed 0 FILE" both work). It prints
// the usage on --help (ok=false, code 0) and a one-line reason on a bad flag
// (ok=false, code 2).
func parseFlags(fs *flag.FlagSet, usageText string, args []string) (positional []string, code int, ok bool) {
	if onFlagSet != nil {
		onFlagSet(fs)
	}
	fs.SetOutput(io.Discard)
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Print(commandHelp(fs, usageText))
			return nil, 0, false
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolscope %s: %s (run 'toolscope %s --help')\n", fs.Name(), dashDash(err), fs.Name())
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
	output          string
	record          string
	maxCalls        int
	maxRunningCalls int
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.output, "output", "", "`MODE`: tui, json or text (default: tui on a terminal, json otherwise)")
	fs.StringVar(&o.record, "record", "", "also write every event as JSON lines to `FILE` (secrets redacted)")
	fs.IntVar(&o.maxCalls, "max-calls", model.DefaultOptions().MaxFinishedCalls, "keep `N` finished calls in memory (oldest evicted first)")
	fs.IntVar(&o.maxRunningCalls, "max-running-calls", model.DefaultMaxRunningCalls, "keep at most `N` running calls in memory (past it the oldest is ended; see README: Memory ceiling)")
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

// pipeline is the store and its writers for one run.
type pipeline struct {
	store  *model.Store
	hub    *model.Hub
	output string
	title  string
	// reported is set once a write error has been said on stderr.
	reported atomic.Bool
}

// newPipeline builds the store, the stdout writer for json/text output and
// the --record writer.
func newPipeline(o outputFlags, output string) (*pipeline, error) {
	opts := model.DefaultOptions()
	if o.maxCalls > 0 {
		opts.MaxFinishedCalls = o.maxCalls
	}
	if o.maxRunningCalls > 0 {
		opts.MaxRunningCalls = o.maxRunningCalls
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
		if output != "tui" { // the screen shows it as a warning; said on exit too
			p.reported.Store(true)
			fmt.Fprintf(os.Stderr, "toolscope: %v (monitoring goes on)\n", err)
		}
	}
	return p, nil
}

// close flushes and closes the writers. A write error is said once: here,
// unless it was already said when it happened.
func (p *pipeline) close(cmd string) {
	if err := p.hub.Close(); err != nil && !p.reported.Load() {
		fmt.Fprintf(os.Stderr, "toolscope %s: %v\n", cmd, err)
	}
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
	// The screen stays until the user quits; work going on (or ending)
	// does not close it, so what it captured can still be read.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workErr := make(chan error, 1)
	go func() { workErr <- work(ctx) }()
	if err := ui.Run(ctx, p.store, ui.Options{OpenCall: openCall, Title: p.title}); err != nil {
		return err
	}
	cancel()
	if err := <-workErr; err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

const replayUsage = `Usage: toolscope replay FILE [--speed F] [--follow] [--output tui|json|text] [--call ID]

Plays a recorded session (the JSON lines --record and --output json write)
back with its original timing, scaled by --speed. Idle gaps over 5 s are
shortened to 5 s. A malformed line becomes a warning naming its line number;
the rest still plays.

{{flags}}
Examples:
  toolscope replay testdata/session.jsonl --output text --speed 0
  toolscope replay session.jsonl --call call_sheets
  toolscope replay --follow /tmp/s.jsonl   (a recording still being written: see 'toolscope tap --help --')
`

func runReplay(args []string) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	speed := fs.Float64("speed", 1, "timing scale `F`: 2 plays twice as fast, 0 as fast as possible")
	callID := fs.String("call", "", "open this call's detail (tui): an `ID` as \"task_id/tool_call_id\" or a tool_call_id")
	follow := fs.Bool("follow", false, "keep reading FILE as it grows (a recording still being written), until stopped")
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
	if fi, err := os.Stat(pos[0]); (err != nil && !(*follow && errors.Is(err, os.ErrNotExist))) || err == nil && fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s is a directory, not a recording", pos[0])
		}
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
	p.title = "replay " + pos[0]
	err = p.runWithScreen(ctx, func(ctx context.Context) error {
		return replay.Run(ctx, pos[0], replay.Options{Speed: *speed, Follow: *follow}, p.hub)
	}, *callID)
	p.close("replay")
	return exitCode("replay", err)
}

// liveFlags add sources to any live command: feeds, taps, and the tap's
// verification settings.
type liveFlags struct {
	feeds, taps   multiFlag
	includeChunks bool
	backfill      bool
	maxEventBytes int
	maxPages      int
	maxBackoff    time.Duration
	giveUpAfter   time.Duration
	// retryForever: the screen shows a feed's retries, so it may keep
	// trying unless --give-up-after was given.
	retryForever bool

	instanceID, instanceName, credentialHeader string
	secretFiles                                multiFlag
	timeout                                    time.Duration
	enforce                                    bool
	maxParseBytes                              int64
	rewriteHost                                bool
	maxBufferedBytes                           int64
}

func (l *liveFlags) register(fs *flag.FlagSet) {
	fs.Var(&l.feeds, "feed", "also watch this task feed `URL` (repeatable)")
	fs.Var(&l.taps, "tap", "also run a tap `LISTEN=UPSTREAM` (repeatable)")
	fs.BoolVar(&l.includeChunks, "include-chunks", false, "ask feeds for llm.call.chunk events")
	fs.BoolVar(&l.backfill, "backfill", true, "load each feed's history before going live")
	fs.IntVar(&l.maxEventBytes, "max-event-bytes", 16<<20, "largest feed event accepted, live or in the history, in bytes: `N` (default 16 MiB)")
	fs.IntVar(&l.maxPages, "max-history-pages", feed.DefaultMaxHistoryPages, "most history pages `N` read per feed by --backfill")
	fs.DurationVar(&l.maxBackoff, "max-backoff", 30*time.Second, "longest wait `D` between feed reconnects")
	fs.DurationVar(&l.giveUpAfter, "give-up-after", 60*time.Second, "with --output json|text, end a feed (exit 1) after failing to connect for `D`; 0: never (the TUI retries until this flag is given)")
	fs.StringVar(&l.instanceID, "instance-id", "", "the MCP server instance `ID` a token's aud must name")
	fs.StringVar(&l.instanceName, "instance-name", "", "the instance's `NAME`, for agent-facing tool names (mcp__<server>__<tool>)")
	fs.StringVar(&l.credentialHeader, "credential-header", "", "the instance's static credential `HEADER` (then required on every call)")
	fs.Var(&l.secretFiles, "secret-file", "read a context secret from `FILE` (repeatable, for rotation)")
	fs.DurationVar(&l.timeout, "timeout", 300*time.Second, "the instance's tool timeout `D`, 1s to 1800s (others exit 2)")
	fs.BoolVar(&l.enforce, "enforce", false, "answer failed verifications as the contract says, without forwarding; refuse what servers could read differently (needs a secret)")
	fs.Int64Var(&l.maxParseBytes, "max-parse-bytes", 8<<20, "most bytes `N` of one body parsed on the side (default 8 MiB)")
	fs.BoolVar(&l.rewriteHost, "rewrite-host", false, "send the upstream's host as Host (name-based upstreams); the tap then refuses a non-loopback Host on a loopback listener itself (403)")
	fs.Int64Var(&l.maxBufferedBytes, "max-buffered-bytes", tap.DefaultMaxBufferedBytes, "most request-body bytes `N` a tap holds at once, over all requests (default 64 MiB)")
}

// sources are the started taps and the feeds to run.
type sources struct {
	taps  []*tap.Tap
	feeds []feed.Config
}

// build validates the flags and makes the taps (not started) and feed
// configurations. extraTaps are LISTEN=UPSTREAM pairs from the command itself.
func (l *liveFlags) build(cmd string, sink model.Sink, extraTaps []tap.Config) (*sources, int) {
	secrets, err := decoder.LoadSecrets(os.Getenv("TOOLSCOPE_CONTEXT_SECRET"), l.secretFiles)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope %s: %s\n", cmd, errText(cmd, err))
		return nil, 2
	}
	prefix, err := decoder.SoatPrefix(os.Getenv("TOOL_CONTEXT_HEADER_PREFIX"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope %s: %s\n", cmd, errText(cmd, err))
		return nil, 2
	}
	if l.timeout < tap.MinTimeout || l.timeout > tap.MaxTimeout {
		return nil, usageError(cmd, "--timeout %v is outside 1s..1800s (the range the contract allows)", l.timeout)
	}
	if l.credentialHeader != "" {
		model.AddSecretHeader(l.credentialHeader)
	}
	cfgs := extraTaps
	for i, pair := range l.taps {
		listen, upstream, ok := strings.Cut(pair, "=")
		if !ok || listen == "" || upstream == "" {
			return nil, usageError(cmd, "--tap wants LISTEN=UPSTREAM, got %q", pair)
		}
		cfgs = append(cfgs, tap.Config{Name: fmt.Sprintf("tap%d", len(extraTaps)+i+1), Listen: listen, Upstream: upstream})
	}
	s := &sources{}
	for _, c := range cfgs {
		c.InstanceID, c.InstanceName, c.Secrets = l.instanceID, l.instanceName, secrets
		c.Timeout, c.Enforce, c.MaxParseBytes = l.timeout, l.enforce, l.maxParseBytes
		c.MaxBufferedBytes = max(l.maxBufferedBytes, l.maxParseBytes) // a larger --max-parse-bytes alone still works
		c.SoatPrefix, c.CredentialHeader = prefix, l.credentialHeader
		c.RewriteHost = l.rewriteHost
		t, err := tap.New(c, sink)
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolscope %s: %s\n", cmd, errText(cmd, err))
			return nil, 2
		}
		s.taps = append(s.taps, t)
	}
	for _, u := range l.feeds {
		if err := feed.CheckURL(u); err != nil {
			return nil, usageError(cmd, "%v", err)
		}
		s.feeds = append(s.feeds, l.feedConfig(u))
	}
	return s, 0
}

func (l *liveFlags) feedConfig(url string) feed.Config {
	return feed.Config{URL: url, APIKey: os.Getenv("AGENTAREA_API_KEY"), IncludeChunks: l.includeChunks,
		MaxEventBytes: l.maxEventBytes, Backfill: l.backfill, MaxBackoff: l.maxBackoff, GiveUpAfter: l.giveUp(),
		MaxHistoryPages: l.maxPages}
}

func (l *liveFlags) giveUp() time.Duration {
	if l.retryForever {
		return 0
	}
	return l.giveUpAfter
}

// settle records what depends on the output and on which flags were given.
func (l *liveFlags) settle(fs *flag.FlagSet, output string) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "give-up-after" })
	l.retryForever = output == "tui" && !given
}

// start starts every tap; on failure the started ones are shut down.
func (s *sources) start() error {
	for i, t := range s.taps {
		if err := t.Start(); err != nil {
			s.shutdown(s.taps[:i])
			return err
		}
	}
	return nil
}

func (s *sources) shutdown(taps []*tap.Tap) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, t := range taps {
		_ = t.Shutdown(ctx)
	}
}

// runFeeds runs every feed until it ends and returns why each failed one did.
func (s *sources) runFeeds(ctx context.Context, sink model.Sink) (failures []error) {
	errs := make(chan error, len(s.feeds))
	for _, c := range s.feeds {
		go func() { errs <- feed.Run(ctx, c, sink) }()
	}
	for range s.feeds {
		if err := <-errs; err != nil && !errors.Is(err, context.Canceled) {
			failures = append(failures, err)
		}
	}
	return failures
}

// sourcesFailed is the error of a live command whose feeds failed: each
// feed's own reason, one a line, so it is still said after the screen closes.
func sourcesFailed(failures []error, of int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %s failed", len(failures), plural(of, "feed"))
	for _, err := range failures {
		b.WriteString("\n  " + model.Sanitize(err.Error()))
	}
	return errors.New(b.String())
}

func exitCode(cmd string, err error) int {
	if err == nil || errors.Is(err, context.Canceled) {
		return 0
	}
	fmt.Fprintf(os.Stderr, "toolscope %s: %s\n", cmd, errText(cmd, err))
	return 1
}

// errText is an error as said after "toolscope CMD: ", without the
// command's name said again ("replay: read x", "tap tap: listen ...").
func errText(cmd string, err error) string {
	msg := err.Error()
	for _, p := range []string{cmd + " " + cmd + ": ", cmd + ": "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

const watchUsage = `Usage: toolscope watch FEED_URL... [flags]
       toolscope watch --api URL --workspace W --agent A --task T [--task T2]... [flags]

Watches AgentArea task feeds live, one subscription per task, all in one view.
The credential comes from AGENTAREA_API_KEY (sent as Authorization: Bearer).
Reconnects with capped backoff and Last-Event-ID; every event is shown once.
A 401, 403 or 404 ends that feed at once. With --output json|text it exits 0
when every task has ended, 1 when a feed failed.

{{flags}}
Examples:
  AGENTAREA_API_KEY=... toolscope watch --api https://api.agentarea.ai --workspace acme --agent 9d4a --task 6f1c...
  toolscope watch https://api.example/v1/workspaces/acme/agents/9d4a/tasks/6f1c/events/stream --output json
`

func runWatch(args []string) int {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	var out outputFlags
	var live liveFlags
	var tasks multiFlag
	api := fs.String("api", "", "the AgentArea API base `URL` (with --workspace, --agent, --task)")
	workspace := fs.String("workspace", "", "workspace slug `W`")
	agent := fs.String("agent", "", "agent id `A`")
	fs.Var(&tasks, "task", "task id `T` (repeatable)")
	out.register(fs)
	live.register(fs)
	pos, code, ok := parseFlags(fs, watchUsage, args)
	if !ok {
		return code
	}
	live.feeds = append(multiFlag(pos), live.feeds...)
	if len(tasks) > 0 {
		if *api == "" || *workspace == "" || *agent == "" {
			return usageError("watch", "--task needs --api, --workspace and --agent")
		}
		for _, t := range tasks {
			live.feeds = append(live.feeds, feed.FeedURL(*api, *workspace, *agent, t))
		}
	}
	if len(live.feeds) == 0 {
		return usageError("watch", "name at least one FEED_URL or --task")
	}
	output, ok := out.resolve("watch")
	if !ok {
		return 2
	}
	live.settle(fs, output)
	p, err := newPipeline(out, output)
	if err != nil {
		return exitCode("watch", err)
	}
	src, code := live.build("watch", p.hub, nil)
	if src == nil {
		return code
	}
	if err := src.start(); err != nil {
		return exitCode("watch", err)
	}
	defer src.shutdown(src.taps)
	ctx, stop := signalContext()
	defer stop()
	p.title = "watch " + plural(len(src.feeds), "feed")
	err = p.runWithScreen(ctx, func(ctx context.Context) error {
		if failures := src.runFeeds(ctx, p.hub); len(failures) > 0 {
			return sourcesFailed(failures, len(src.feeds))
		}
		return ctx.Err()
	}, "")
	p.close("watch")
	return exitCode("watch", err)
}

const tapUsage = `Usage: toolscope tap --upstream URL [--listen 127.0.0.1:7070] [flags]
       toolscope tap [flags] -- COMMAND [ARGS...]  (a stdio server: 'toolscope tap --help --')

Runs a tap proxy in front of an MCP server. Point the platform (or any MCP
client) at the tap instead of the server: every byte passes through unchanged,
SSE events are flushed the moment they arrive, and toolscope shows each
tools/call with its verified context token, progress and result. Runs until
SIGINT or SIGTERM, then flushes and exits 0.

Context secrets come from TOOLSCOPE_CONTEXT_SECRET and --secret-file, never
from arguments. The SOAT header prefix comes from TOOL_CONTEXT_HEADER_PREFIX.

{{flags}}
Examples:
  TOOLSCOPE_CONTEXT_SECRET=... toolscope tap --upstream http://127.0.0.1:8080/mcp --instance-id 3f6e...
  toolscope tap --tap 127.0.0.1:7071=http://10.0.0.5/mcp --tap 127.0.0.1:7072=http://10.0.0.6/mcp --output json
`

func runTap(args []string) int {
	if i := slices.Index(args, "--"); i >= 0 {
		return runStdioTap(args[:i], args[i+1:]) // a stdio server: see stdio_cmd.go
	}
	fs := flag.NewFlagSet("tap", flag.ContinueOnError)
	var out outputFlags
	var live liveFlags
	upstream := fs.String("upstream", "", "the MCP endpoint `URL`, e.g. http://127.0.0.1:8080/mcp")
	listen := fs.String("listen", tap.DefaultListen, "where the tap listens: `ADDR` (addresses off loopback warn)")
	out.register(fs)
	live.register(fs)
	pos, code, ok := parseFlags(fs, tapUsage, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError("tap", "unexpected argument %q", pos[0])
	}
	var main []tap.Config
	if *upstream != "" {
		main = append(main, tap.Config{Name: "tap", Listen: *listen, Upstream: *upstream})
	}
	if len(main)+len(live.taps) == 0 {
		return usageError("tap", "--upstream URL (or --tap LISTEN=UPSTREAM) is required")
	}
	output, ok := out.resolve("tap")
	if !ok {
		return 2
	}
	live.settle(fs, output)
	p, err := newPipeline(out, output)
	if err != nil {
		return exitCode("tap", err)
	}
	src, code := live.build("tap", p.hub, main)
	if src == nil {
		return code
	}
	if err := src.start(); err != nil {
		return exitCode("tap", err)
	}
	if output != "tui" {
		for _, t := range src.taps {
			fmt.Fprintf(os.Stderr, "toolscope tap: listening on http://%s\n", t.Addr())
		}
	}
	ctx, stop := signalContext()
	defer stop()
	p.title = "tap"
	err = p.runWithScreen(ctx, func(ctx context.Context) error {
		src.runFeeds(ctx, p.hub)
		<-ctx.Done() // a tap runs until SIGINT or SIGTERM (or the screen quits)
		return nil
	}, "")
	src.shutdown(src.taps)
	p.close("tap")
	return exitCode("tap", err)
}

const demoUsage = `Usage: toolscope demo [--speed F] [--output tui|json|text]

Runs, on this machine alone and on loopback: a real MCP server (the official
Go SDK) that verifies context tokens, a simulated AgentArea platform that signs
a token per call, calls the server through a real toolscope tap, relays progress
under the 0.5 s rule and serves real SSE task feeds, and toolscope watching
both. Scenarios: a long call with more progress sent than relayed, progress
without a total, a retry answered from the idempotency store, images,
dropped structured content and offloaded text, an isError result, two
rejected tokens, a timeout cancellation and a SOAT call with PII.

In the TUI the screen stays open until q; with --output json|text the events
are printed and it exits 0 when the scenarios end.

{{flags}}
Examples:
  toolscope demo
  toolscope demo --speed 10 --output json | jq -c 'select(.kind=="tool.result")'
`

func runDemo(args []string) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var out outputFlags
	var live liveFlags
	speed := fs.Float64("speed", 1, "scenario clock scale `F`: 10 finishes in a few seconds, with the same outcomes")
	out.register(fs)
	live.register(fs)
	pos, code, ok := parseFlags(fs, demoUsage, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError("demo", "unexpected argument %q", pos[0])
	}
	if *speed <= 0 {
		return usageError("demo", "--speed must be more than 0")
	}
	output, ok := out.resolve("demo")
	if !ok {
		return 2
	}
	live.settle(fs, output)
	p, err := newPipeline(out, output)
	if err != nil {
		return exitCode("demo", err)
	}
	src, code := live.build("demo", p.hub, nil)
	if src == nil {
		return code
	}
	if err := src.start(); err != nil {
		return exitCode("demo", err)
	}
	defer src.shutdown(src.taps)
	ctx, stop := signalContext()
	defer stop()
	p.title = "demo"
	err = p.runWithScreen(ctx, func(ctx context.Context) error {
		done := make(chan struct{})
		go func() { src.runFeeds(ctx, p.hub); close(done) }()
		err := demo.Run(ctx, demo.Options{Speed: *speed}, p.hub)
		<-done
		return err
	}, "")
	p.close("demo")
	return exitCode("demo", err)
}

const decodeUsage = `Usage: toolscope decode [TOKEN|-] [--call FILE] [--instance-id ID] [--secret-file F]... [--output text|json]

Decodes one X-AgentArea-Context token and, with a secret, verifies it as the
contract says: each of the four steps passed or failed, the verdict, and the
answer (HTTP status and JSON-RPC code) a server must give. With --call, the
token is checked against that tools/call body (tool name and _meta). The token
comes as the argument, or from standard input with - (or when no argument is
given). Secrets come from TOOLSCOPE_CONTEXT_SECRET or --secret-file, never
from arguments. The signature is never printed.

Exit status: 0 valid (or unverified, without a secret), 1 rejected, 2 usage.

{{flags}}
Examples:
  TOOLSCOPE_CONTEXT_SECRET=... toolscope decode eyJhbGciOi... --instance-id 3f6e... --call call.json
  pbpaste | toolscope decode - --output json
`

// maxTokenInput bounds a token read from standard input (a context token
// is a few KiB).
const maxTokenInput = 1 << 20

// readToken reads a token from r; a longer input is refused as cut rather
// than decoded from its first megabyte.
func readToken(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxTokenInput+1))
	if err != nil {
		return "", fmt.Errorf("reading the token: %v", err)
	}
	if len(b) > maxTokenInput {
		return "", fmt.Errorf("standard input is over %d bytes: cut there, so not decoded (a context token is a few KiB)", maxTokenInput)
	}
	return string(b), nil
}

func runDecode(args []string) int {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	var secretFiles multiFlag
	callFile := fs.String("call", "", "check the token against this tools/call body (JSON) in `FILE`")
	instanceID := fs.String("instance-id", "", "the MCP server instance `ID` a token's aud must name")
	output := fs.String("output", "text", "`MODE`: text or json")
	fs.Var(&secretFiles, "secret-file", "read a context secret from `FILE` (repeatable, for rotation)")
	pos, code, ok := parseFlags(fs, decodeUsage, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return usageError("decode", "want one TOKEN (or -), got %d arguments", len(pos))
	}
	if *output != "text" && *output != "json" {
		return usageError("decode", "--output must be text or json, not %q", *output)
	}
	token := "-"
	if len(pos) == 1 {
		token = pos[0]
	}
	if len(pos) == 0 && stdinIsTerminal() {
		// Waiting silently for a paste is a trap: say how instead.
		fmt.Fprint(os.Stderr, commandHelp(fs, decodeUsage))
		return 2
	}
	if token == "-" {
		var err error
		if token, err = readToken(os.Stdin); err != nil {
			fmt.Fprintf(os.Stderr, "toolscope decode: %v\n", err)
			return 2
		}
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return usageError("decode", "no token given")
	}
	if strings.HasSuffix(token, "."+model.Redacted) {
		fmt.Fprintln(os.Stderr, "toolscope decode: this token's signature was redacted by toolscope (recordings, copies and the screen never keep it): its header and claims can be read, it cannot be verified")
	}
	secrets, err := decoder.LoadSecrets(os.Getenv("TOOLSCOPE_CONTEXT_SECRET"), secretFiles)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope decode: %v\n", err)
		return 2
	}
	var call []byte
	if *callFile != "" {
		if call, err = os.ReadFile(*callFile); err != nil {
			fmt.Fprintf(os.Stderr, "toolscope decode: --call: %v\n", err)
			return 2
		}
	}
	return decoder.RunDecode(decoder.DecodeArgs{Token: token, Call: call, InstanceID: *instanceID,
		Secrets: secrets, Output: *output, Now: time.Now()}, os.Stdout)
}

// plural is "1 feed", "2 feeds".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
