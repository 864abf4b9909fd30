package cli

import (
	"toolscope/model"
	"toolscope/stream/feed"
)

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

// watchCommand is `toolscope watch`: task feeds, named by URL or by task.
type watchCommand struct {
	fs                    *flagSet
	out                   outputFlags
	live                  liveFlags
	api, workspace, agent string
	tasks                 multiFlag
}

func newWatchCommand() *watchCommand {
	c := &watchCommand{fs: newFlagSet("watch")}
	c.fs.StringVar(&c.api, "api", "", "the AgentArea API base `URL` (with --workspace, --agent, --task)")
	c.fs.StringVar(&c.workspace, "workspace", "", "workspace slug `W`")
	c.fs.StringVar(&c.agent, "agent", "", "agent id `A`")
	c.fs.Var(&c.tasks, "task", "task id `T` (repeatable)")
	c.fs.group(groupOutput, c.out.registerMode)
	c.fs.group(groupOutput, c.out.register)
	c.fs.group(groupOutput, c.out.registerMetrics)
	c.fs.group(groupMCP, c.out.mcp.register)
	c.live.registerAll(c.fs)
	return c
}

func (c *watchCommand) flags() *flagSet { return c.fs }

// Run watches the feeds until they end (or SIGINT); 1 when a feed failed.
func (c *watchCommand) Run(args []string) int {
	pos, code, ok := c.fs.parse(watchUsage, args)
	if !ok {
		return code
	}
	c.live.feeds = append(multiFlag(pos), c.live.feeds...)
	if len(c.tasks) > 0 {
		if c.api == "" || c.workspace == "" || c.agent == "" {
			return usageError("watch", "--task needs --api, --workspace and --agent")
		}
		for _, t := range c.tasks {
			c.live.feeds = append(c.live.feeds, feed.FeedURL(c.api, c.workspace, c.agent, t))
		}
	}
	if len(c.live.feeds) == 0 {
		return usageError("watch", "name at least one FEED_URL or --task")
	}
	return runLive(liveRun{cmd: "watch", fs: c.fs, out: &c.out, live: &c.live,
		title: "watch " + model.Plural(len(c.live.feeds), "feed")})
}
