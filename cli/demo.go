package cli

import (
	"context"

	"toolscope/demo"
	"toolscope/model"
)

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
are printed and it exits 0 when the scenarios end. Its sources are its own:
it takes no --feed, --tap or tap settings.

{{flags}}
Examples:
  toolscope demo
  toolscope demo --speed 10 --output json | jq -c 'select(.kind=="tool.result")'
`

// demoCommand is `toolscope demo`: the embedded platform, MCP server, tap
// and feeds (package demo), watched.
type demoCommand struct {
	fs    *flagSet
	out   outputFlags
	speed float64
}

func newDemoCommand() *demoCommand {
	c := &demoCommand{fs: newFlagSet("demo")}
	c.fs.Float64Var(&c.speed, "speed", 1, "scenario clock scale `F`: 10 finishes in a few seconds, with the same outcomes")
	c.fs.group(groupOutput, c.out.registerMode)
	c.fs.group(groupOutput, c.out.register)
	c.fs.group(groupOutput, c.out.registerMetrics)
	c.fs.group(groupMCP, c.out.mcp.register)
	return c
}

func (c *demoCommand) flags() *flagSet { return c.fs }

// Run plays the scenarios; with json|text it ends when they do.
func (c *demoCommand) Run(args []string) int {
	pos, code, ok := c.fs.parse(demoUsage, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError("demo", "unexpected argument %q", pos[0])
	}
	if c.speed <= 0 {
		return usageError("demo", "--speed must be more than 0")
	}
	return runLive(liveRun{cmd: "demo", fs: c.fs, out: &c.out, title: "demo",
		main: func(ctx context.Context, sink model.Sink) error {
			return demo.Run(ctx, demo.Options{Speed: c.speed, RecordBodyLimit: c.out.tapBodyLimit()}, sink)
		}})
}
