// Package cli is toolscope's command line: one file per command (a type
// holding its FlagSet, its help made from it), and one skeleton the
// commands that show events share (live.go): sources → hub → outputs →
// screen or lines → exit code. No package imports cli.
package cli

import (
	"fmt"
	"os"
	"strings"
)

const usage = `toolscope: a live monitor for AI-agent tool calls

Usage:
  toolscope COMMAND [flags]

Commands:
%s
Run 'toolscope COMMAND --help' for a command's flags and examples,
'toolscope --version' for the version.
`

// runner is one command, made with its flags registered: Run parses args
// and returns the process exit code.
type runner interface {
	Run(args []string) int
}

// command is one subcommand as the top-level help lists it.
type command struct {
	name, summary string
	new           func() runner
}

func commands() []command {
	return []command{
		{"demo", "run the embedded platform, MCP server, tap and feed, and watch them", func() runner { return newDemoCommand() }},
		{"watch", "watch AgentArea task feeds live", func() runner { return newWatchCommand() }},
		{"tap", "run a tap proxy in front of an MCP server", func() runner { return newTapCommand() }},
		{"replay", "play a recorded session (JSON lines) back", func() runner { return newReplayCommand() }},
		{"decode", "decode and verify one X-AgentArea-Context token", func() runner { return newDecodeCommand() }},
		{"probe", "check that an MCP server keeps the AgentArea context contract", func() runner { return newProbeCommand() }},
	}
}

// Run runs the command line args (without the program name) and returns
// the process exit code: 0 done, 1 failed, 2 usage.
func Run(args []string) int {
	stop := startProfiles()
	defer stop()
	return run(args)
}

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
			return c.new().Run(args[1:])
		}
	}
	fmt.Fprintf(os.Stderr, "toolscope: unknown command %q (run 'toolscope --help')\n", args[0])
	return 2
}
