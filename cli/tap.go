package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"toolscope/model"
	"toolscope/stream/tap"
)

const tapUsage = `Usage: toolscope tap --upstream URL [--listen 127.0.0.1:7070] [flags]
       toolscope tap [flags] -- COMMAND [ARGS...]

Runs a tap proxy in front of an MCP server. Point the platform (or any MCP
client) at the tap instead of the server: every byte passes through unchanged,
SSE events are flushed the moment they arrive, and toolscope shows each
tools/call with its verified context token, progress and result. Runs until
SIGINT or SIGTERM, then flushes and exits 0.

Context secrets come from {{secret_env}} and --secret-file, never
from arguments. The SOAT header prefix comes from {{prefix_env}}.

With -- COMMAND the tap runs COMMAND, a stdio MCP server, as its child and
watches its pipes instead: no listener and no HTTP, no feeds, no --enforce
(it does not answer for the server), and no screen or --output (stdout
belongs to the MCP protocol: events go to --record FILE). The flags it takes:
{{stdio_flags}}
Its whole help: toolscope help tap --

{{flags}}
Examples:
  {{secret_env}}=... toolscope tap --upstream http://127.0.0.1:8080/mcp --instance-id 3f6e...
  toolscope tap --tap 127.0.0.1:7071=http://10.0.0.5/mcp --tap 127.0.0.1:7072=http://10.0.0.6/mcp --output json
`

// tapCommand is `toolscope tap`: an HTTP tap proxy in front of an MCP
// server (and any --tap and --feed beside it).
type tapCommand struct {
	fs       *flagSet
	out      outputFlags
	live     liveFlags
	upstream string
	listen   string
}

func newTapCommand() *tapCommand {
	c := &tapCommand{fs: newFlagSet("tap")}
	c.fs.StringVar(&c.upstream, "upstream", "", "the MCP endpoint `URL`, e.g. http://127.0.0.1:8080/mcp")
	c.fs.StringVar(&c.listen, "listen", tap.DefaultListen, "where the tap listens: `ADDR` (addresses off loopback warn)")
	c.fs.group(groupOutput, c.out.registerMode)
	c.fs.group(groupOutput, c.out.register)
	c.fs.group(groupOutput, c.out.registerMetrics)
	c.fs.group(groupMCP, c.out.mcp.register)
	c.live.registerAll(c.fs)
	return c
}

func (c *tapCommand) flags() *flagSet { return c.fs }

// tapHelpText is tap's usage text with the stdio tap's flags named, from
// its own flags.
func tapHelpText() string {
	var names []string
	for _, n := range newStdioTapCommand().fs.names() {
		names = append(names, "--"+n)
	}
	list := "  " + strings.Join(wrapAt(strings.Join(names, ", ")+".", 76), "\n  ") + "\n"
	return strings.Replace(tapUsage, "{{stdio_flags}}\n", list, 1)
}

// Run runs the taps until SIGINT or SIGTERM (or the screen quits).
func (c *tapCommand) Run(args []string) int {
	if i := slices.Index(args, "--"); i >= 0 {
		return newStdioTapCommand().Run(args[:i], args[i+1:]) // a stdio server: see tap_stdio.go
	}
	c.fs.refused = onlyForStdio(c.fs, newStdioTapCommand().fs)
	pos, code, ok := c.fs.parse(tapHelpText(), args)
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
