// Package cli is toolscope's command line: one file per command (a type
// holding its FlagSet, its help made from it), and one skeleton the
// commands that show events share (live.go): sources → hub → outputs →
// screen or lines → exit code. No package imports cli.
package cli

import (
	"fmt"
	"os"
	"strings"

	"toolscope/model"
)

const usage = `toolscope: a live monitor for AI-agent tool calls

Usage:
  toolscope COMMAND [flags]

Commands:
%s
Run 'toolscope help COMMAND' (or 'toolscope COMMAND --help') for a command's
flags and examples, 'toolscope --version' for the version.
`

// runner is one command, made with its flags registered: Run parses args
// and returns the process exit code.
type runner interface {
	Run(args []string) int
	flags() *flagSet
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
		{"tap", "run a tap proxy in front of an MCP server (HTTP, or stdio with -- COMMAND)", func() runner { return newTapCommand() }},
		{"replay", "play a recorded session (JSON lines) back", func() runner { return newReplayCommand() }},
		{"decode", "decode and verify one X-AgentArea-Context token", func() runner { return newDecodeCommand() }},
		{"probe", "check that an MCP server keeps the AgentArea context contract", func() runner { return newProbeCommand() }},
		{"mock", "serve a recorded MCP server again (HTTP or stdio)", func() runner { return newMockCommand() }},
		{"export", "write a recording's HTTP exchanges as HAR 1.2", func() runner { return newExportCommand() }},
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
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, topUsage())
		return 2
	}
	switch arg := args[0]; {
	case arg == "--version" || arg == "-version" || arg == "version":
		fmt.Println(version())
		return 0
	case arg == "-h" || arg == "--help" || arg == "-help":
		fmt.Print(topUsage())
		return 0
	case arg == "help":
		return help(args[1:])
	case strings.HasPrefix(arg, "-"):
		return topLevelFlag(arg)
	}
	if c, ok := findCommand(args[0]); ok {
		return c.new().Run(args[1:])
	}
	fmt.Fprintf(os.Stderr, "toolscope: unknown command %q (run 'toolscope --help')\n", args[0])
	return 2
}

// help is 'toolscope help [COMMAND [--]]': a command's help ("tap --": the
// stdio tap's), or the top-level usage.
func help(args []string) int {
	if len(args) == 0 {
		fmt.Print(topUsage())
		return 0
	}
	c, ok := findCommand(args[0])
	if !ok || len(args) > 2 || len(args) == 2 && (args[0] != "tap" || args[1] != "--") {
		fmt.Fprintf(os.Stderr, "toolscope help: no help for %q (run 'toolscope --help' for the commands)\n", strings.Join(args, " "))
		return 2
	}
	return c.new().Run(append([]string{"--help"}, args[1:]...))
}

// topLevelFlag answers a flag given before any command: flags belong to
// commands.
func topLevelFlag(arg string) int {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if others := commandsWithFlag(name); len(others) > 0 {
		fmt.Fprintf(os.Stderr, "toolscope: --%s goes after a command (it is a flag of %s): toolscope COMMAND --%s ...\n",
			name, strings.Join(others, ", "), name)
		return 2
	}
	fmt.Fprintf(os.Stderr, "toolscope: unknown flag %s (run 'toolscope --help')\n", model.Sanitize(arg))
	return 2
}

func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// topUsage is the top-level usage: the commands and their summaries.
func topUsage() string {
	var list strings.Builder
	for _, c := range commands() {
		fmt.Fprintf(&list, "  %-8s %s\n", c.name, c.summary)
	}
	return fmt.Sprintf(usage, list.String())
}
