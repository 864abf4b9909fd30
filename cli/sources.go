package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"toolscope/decoder/soat"
	"toolscope/decoder/token"
	"toolscope/model"
	"toolscope/stream/feed"
	"toolscope/stream/tap"
)

// apiKeyEnv names the variable holding the AgentArea API key feeds send.
const apiKeyEnv = "AGENTAREA_API_KEY"

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
	// recordBodyLimit: taps capture what they pass for --record (set by
	// the live skeleton from the output flags; 0 without --record).
	recordBodyLimit int64
	// secrets are the context secrets build loaded.
	secrets [][]byte
}

// secretValues are the context secrets build loaded, for the redactor.
func (l *liveFlags) secretValues() []string {
	out := make([]string, len(l.secrets))
	for i, s := range l.secrets {
		out[i] = string(s)
	}
	return out
}

// registerAll adds the Feeds, Taps and Checking calls groups: what a live
// command with sources of its own (watch, tap) takes to add and tune feeds
// and taps.
func (l *liveFlags) registerAll(s *flagSet) {
	s.group(groupFeeds, l.registerFeeds)
	s.group(groupTaps, l.registerTaps)
	s.group(groupCallChecks, l.registerCallChecks)
}

// registerFeeds: --feed and what tunes every feed.
func (l *liveFlags) registerFeeds(fs *flag.FlagSet) {
	fs.Var(&l.feeds, "feed", "also watch this task feed `URL` (repeatable)")
	fs.BoolVar(&l.includeChunks, "include-chunks", false, "ask feeds for llm.call.chunk events")
	fs.BoolVar(&l.backfill, "backfill", true, "load each feed's history before going live")
	fs.IntVar(&l.maxEventBytes, "max-event-bytes", 16<<20, "largest feed event accepted, live or in the history, in bytes: `N` (default 16 MiB)")
	fs.IntVar(&l.maxPages, "max-history-pages", feed.DefaultMaxHistoryPages, "most history pages `N` read per feed by --backfill")
	fs.DurationVar(&l.maxBackoff, "max-backoff", 30*time.Second, "longest wait `D` between feed reconnects")
	fs.DurationVar(&l.giveUpAfter, "give-up-after", 60*time.Second, "with --output json|text, end a feed (exit 1) after failing to connect for `D`; 0: never (the TUI retries until this flag is given)")
}

// registerTaps: --tap and the settings only an HTTP tap has.
func (l *liveFlags) registerTaps(fs *flag.FlagSet) {
	fs.Var(&l.taps, "tap", "also run a tap `LISTEN=UPSTREAM` (repeatable)")
	fs.StringVar(&l.credentialHeader, "credential-header", "", "the instance's static credential `HEADER` (then required on every call)")
	fs.BoolVar(&l.enforce, "enforce", false, "answer failed verifications as the contract says, without forwarding; refuse what servers could read differently (needs a secret)")
	fs.BoolVar(&l.rewriteHost, "rewrite-host", false, "send the upstream's host as Host (name-based upstreams); the tap then refuses a non-loopback Host on a loopback listener itself (403)")
	fs.Int64Var(&l.maxBufferedBytes, "max-buffered-bytes", tap.DefaultMaxBufferedBytes, "most request-body bytes `N` a tap holds at once, over all requests (default 64 MiB)")
}

// registerCallChecks: how every tap, HTTP or stdio, reads and judges calls.
func (l *liveFlags) registerCallChecks(fs *flag.FlagSet) {
	fs.StringVar(&l.instanceID, "instance-id", "", "the MCP server instance `ID` a token's aud must name")
	fs.StringVar(&l.instanceName, "instance-name", "", "the instance's `NAME`, for agent-facing tool names (mcp__<server>__<tool>)")
	fs.Var(&l.secretFiles, "secret-file", "read a context secret from `FILE` (repeatable, for rotation)")
	fs.DurationVar(&l.timeout, "timeout", 300*time.Second, "the instance's tool timeout `D`, 1s to 1800s (others exit 2): a call past it is flagged late")
	fs.Int64Var(&l.maxParseBytes, "max-parse-bytes", 8<<20, "most bytes `N` of one body or message parsed on the side (default 8 MiB); a longer one is forwarded, not parsed")
}

// sources are the taps (made, not started) and the feeds to run.
type sources struct {
	taps  []*tap.Tap
	feeds []feed.Config
}

// build validates the flags and makes the taps (not started) and feed
// configurations. extraTaps are LISTEN=UPSTREAM pairs from the command itself.
func (l *liveFlags) build(cmd string, sink model.Sink, extraTaps []tap.Config) (*sources, int) {
	secrets, err := token.LoadSecrets(os.Getenv(token.SecretEnv), l.secretFiles)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope %s: %s\n", cmd, errText(cmd, err))
		return nil, 2
	}
	l.secrets = secrets
	prefix, err := soat.Prefix(os.Getenv(soat.PrefixEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope %s: %s\n", cmd, errText(cmd, err))
		return nil, 2
	}
	if l.timeout < tap.MinTimeout || l.timeout > tap.MaxTimeout {
		return nil, usageError(cmd, "--timeout %v is outside 1s..1800s (the range the contract allows)", l.timeout)
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
		c.RecordBodyLimit = l.recordBodyLimit
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
	return feed.Config{URL: url, APIKey: os.Getenv(apiKeyEnv), IncludeChunks: l.includeChunks,
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
func (l *liveFlags) settle(s *flagSet, output string) {
	l.retryForever = output == "tui" && !s.given("give-up-after")
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

// run runs the feeds beside main until both end. Without main the feeds
// are the work, and their failures the command's; with main (a tap, the
// demo, a replay) its error is.
func (s *sources) run(ctx context.Context, sink model.Sink, main func(context.Context, model.Sink) error) error {
	feedsFailed := make(chan []error, 1)
	go func() { feedsFailed <- s.runFeeds(ctx, sink) }()
	if main == nil {
		if failures := <-feedsFailed; len(failures) > 0 {
			return sourcesFailed(failures, len(s.feeds))
		}
		return ctx.Err()
	}
	err := main(ctx, sink)
	<-feedsFailed
	return err
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
	fmt.Fprintf(&b, "%d of %s failed", len(failures), model.Plural(of, "feed"))
	for _, err := range failures {
		b.WriteString("\n  " + model.Sanitize(err.Error()))
	}
	return errors.New(b.String())
}
