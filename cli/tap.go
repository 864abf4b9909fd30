package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"

	"toolscope/model"
	"toolscope/stream/tap"
)

const tapUsage = `Usage: toolscope tap --upstream URL [--listen 127.0.0.1:7070] [flags]
       toolscope tap [flags] -- COMMAND [ARGS...]  (a stdio server: 'toolscope tap --help --')

Runs a tap proxy in front of an MCP server. Point the platform (or any MCP
client) at the tap instead of the server: every byte passes through unchanged,
SSE events are flushed the moment they arrive, and toolscope shows each
tools/call with its verified context token, progress and result. Runs until
SIGINT or SIGTERM, then flushes and exits 0.

Context secrets come from {{secret_env}} and --secret-file, never
from arguments. The SOAT header prefix comes from {{prefix_env}}.

{{flags}}
Examples:
  {{secret_env}}=... toolscope tap --upstream http://127.0.0.1:8080/mcp --instance-id 3f6e...
  toolscope tap --tap 127.0.0.1:7071=http://10.0.0.5/mcp --tap 127.0.0.1:7072=http://10.0.0.6/mcp --output json
`

// tapCommand is `toolscope tap`: an HTTP tap proxy in front of an MCP
// server (and any --tap and --feed beside it).
type tapCommand struct {
	fs       *flag.FlagSet
	out      outputFlags
	live     liveFlags
	upstream string
	listen   string
}

func newTapCommand() *tapCommand {
	c := &tapCommand{fs: flag.NewFlagSet("tap", flag.ContinueOnError)}
	c.fs.StringVar(&c.upstream, "upstream", "", "the MCP endpoint `URL`, e.g. http://127.0.0.1:8080/mcp")
	c.fs.StringVar(&c.listen, "listen", tap.DefaultListen, "where the tap listens: `ADDR` (addresses off loopback warn)")
	c.out.register(c.fs)
	c.out.registerMetrics(c.fs)
	c.live.register(c.fs)
	return c
}

// Run runs the taps until SIGINT or SIGTERM (or the screen quits).
func (c *tapCommand) Run(args []string) int {
	if i := slices.Index(args, "--"); i >= 0 {
		return runStdioTap(args[:i], args[i+1:]) // a stdio server: see tap_stdio.go
	}
	pos, code, ok := parseFlags(c.fs, tapUsage, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError("tap", "unexpected argument %q", pos[0])
	}
	var own []tap.Config
	if c.upstream != "" {
		own = append(own, tap.Config{Name: "tap", Listen: c.listen, Upstream: c.upstream})
	}
	if len(own)+len(c.live.taps) == 0 {
		return usageError("tap", "--upstream URL (or --tap LISTEN=UPSTREAM) is required")
	}
	return runLive(liveRun{cmd: "tap", fs: c.fs, out: &c.out, live: &c.live, taps: own, title: "tap",
		started: func(src *sources) {
			for _, t := range src.taps {
				fmt.Fprintf(os.Stderr, "toolscope tap: listening on http://%s\n", t.Addr())
			}
		},
		main: func(ctx context.Context, _ model.Sink) error {
			<-ctx.Done() // a tap runs until SIGINT or SIGTERM (or the screen quits)
			return nil
		}})
}
