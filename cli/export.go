package cli

import (
	"context"
	"fmt"
	"os"

	"toolscope/model"
	"toolscope/output/har"
	"toolscope/stream/replay"
)

const exportUsage = `Usage: toolscope export --har OUT RECORDING

Writes the HTTP exchanges a recording holds (its wire lines: made by a tap
with --record) as an HTTP Archive (HAR 1.2) to OUT ('-' for stdout): one
entry per exchange with its headers (redacted as in the recording), bodies
(an event stream as its SSE frames) and timings, for a browser's developer
tools or any HAR viewer. A rotated recording is read whole, oldest part
first. Stdio lines have no place in HAR and are counted, not exported.

{{flags}}
Examples:
  toolscope tap --upstream http://127.0.0.1:8080/mcp --record session.jsonl
  toolscope export --har session.har session.jsonl
`

// exportCommand is `toolscope export`: a recording in another format.
type exportCommand struct {
	fs  *flagSet
	har string
}

func newExportCommand() *exportCommand {
	c := &exportCommand{fs: newFlagSet("export")}
	c.fs.StringVar(&c.har, "har", "", "write HAR 1.2 to `OUT` ('-': stdout)")
	return c
}

func (c *exportCommand) flags() *flagSet { return c.fs }

// Run exports RECORDING; 1 when it cannot be read or holds no exchange.
func (c *exportCommand) Run(args []string) int {
	pos, code, ok := c.fs.parse(exportUsage, args)
	if !ok {
		return code
	}
	switch {
	case c.har == "":
		return usageError("export", "say the format and where: --har OUT")
	case len(pos) != 1:
		return usageError("export", "want exactly one RECORDING, got %d arguments", len(pos))
	}
	set, err := replay.OpenSet(pos[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope export: %v\n", err)
		return 1
	}
	defer set.Close()
	out, closeOut := os.Stdout, func() error { return nil }
	if c.har != "-" {
		f, err := os.OpenFile(c.har, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolscope export: %v\n", err)
			return 1
		}
		out, closeOut = f, f.Close
	}
	w := har.NewWriter(out, version())
	var stdio, malformed int
	playErr := replay.Play(context.Background(), set, replay.Options{Name: pos[0]}, model.SinkFunc(func(e model.Event) {
		switch {
		case e.Kind == model.KindWarning && e.Source == model.SourceReplay:
			malformed++
		case e.Kind == model.KindWire && !w.Add(e):
			stdio++
		}
	}))
	err = w.Close()
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err == nil {
		err = playErr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope export: %s\n", errText("export", err))
		return 1
	}
	if malformed > 0 || stdio > 0 {
		fmt.Fprintf(os.Stderr, "toolscope export: %s not exported (%s, %s)\n", model.Plural(malformed+stdio, "line"),
			model.Plural(stdio, "stdio line"), model.Plural(malformed, "malformed line"))
	}
	if w.Entries() == 0 {
		fmt.Fprintf(os.Stderr, "toolscope export: %s holds no HTTP exchange (record one with 'toolscope tap --record FILE')\n", pos[0])
		return 1
	}
	return 0
}
