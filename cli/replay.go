package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"toolscope/model"
	"toolscope/stream/replay"
)

const replayUsage = `Usage: toolscope replay FILE [--speed F] [--follow] [--output tui|json|text] [--call ID]

Plays a recorded session (the JSON lines --record and --output json write)
back with its original timing, scaled by --speed. Idle gaps over 5 s are
shortened to 5 s. A malformed line becomes a warning naming its line number;
the rest still plays.

{{flags}}
Examples:
  toolscope replay model/modeltest/testdata/session.jsonl --output text --speed 0
  toolscope replay session.jsonl --call call_sheets
  toolscope replay --follow /tmp/s.jsonl   (a recording still being written: see 'toolscope help tap --')
`

// replayCommand is `toolscope replay`: a recording played back.
type replayCommand struct {
	fs     *flagSet
	out    outputFlags
	speed  float64
	callID string
	follow bool
}

func newReplayCommand() *replayCommand {
	c := &replayCommand{fs: newFlagSet("replay")}
	c.fs.Float64Var(&c.speed, "speed", 1, "timing scale `F`: 2 plays twice as fast, 0 as fast as possible")
	c.fs.StringVar(&c.callID, "call", "", "open this call's detail (tui): an `ID` as \"task_id/tool_call_id\" or a tool_call_id")
	c.fs.BoolVar(&c.follow, "follow", false, "keep reading FILE as it grows (a recording still being written), until stopped")
	c.fs.group(groupOutput, c.out.registerMode)
	c.fs.group(groupOutput, c.out.register)
	c.fs.group(groupMCP, c.out.mcp.register)
	return c
}

func (c *replayCommand) flags() *flagSet { return c.fs }

// Run plays FILE; 1 when it cannot be read or holds no event.
func (c *replayCommand) Run(args []string) int {
	pos, code, ok := c.fs.parse(replayUsage, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return usageError("replay", "want exactly one FILE, got %d arguments", len(pos))
	}
	if c.speed < 0 {
		return usageError("replay", "--speed must be 0 or more")
	}
	if _, ok := c.out.resolve("replay"); !ok {
		return 2
	}
	file := pos[0]
	// Said before --record opens (and truncates) its file.
	if fi, err := os.Stat(file); (err != nil && !(c.follow && errors.Is(err, os.ErrNotExist))) || err == nil && fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s is a directory, not a recording", file)
		}
		fmt.Fprintf(os.Stderr, "toolscope replay: %v\n", err)
		return 1
	}
	return runLive(liveRun{cmd: "replay", fs: c.fs, out: &c.out, title: "replay " + file, openCall: c.callID,
		main: func(ctx context.Context, sink model.Sink) error {
			return replay.Run(ctx, file, replay.Options{Speed: c.speed, Follow: c.follow}, sink)
		}})
}
