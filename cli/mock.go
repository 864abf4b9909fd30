package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"

	"toolscope/model"
	"toolscope/stream/mock"
	"toolscope/stream/tap"
)

const mockUsage = `Usage: toolscope mock RECORDING [--listen ADDR] [--speed F]
       toolscope mock RECORDING --stdio [--speed F] [--record FILE]

Serves the MCP server a recording holds (its wire lines: record a session
with 'toolscope tap --record FILE'), for a client to run against without
the server. It answers as the server did, in the protocol the recording's
client spoke (2025-11-25: initialize and a session; 2026-07-28: stateless):
tools/list and other requests as recorded; a tools/call with the recorded
answer to the same tool and JSON-equal arguments (a value the recording
redacted matches any), its progress at the recorded spacing scaled by
--speed; the same call made again gets the next recorded answer, in order
(past the last, the last again); a later round of a multi-round call is
matched by its requestState. A call the recording does not hold gets a
JSON-RPC error at once, naming the tool and the arguments recorded for it.

Over HTTP the mock stands behind a real tap, so its calls show on the
screen or in --output json as a tap's do. With --stdio it is a stdio server
(stdin and stdout are the protocol's) behind a stdio tap: events go to
--record FILE only. A rotated recording is read whole, oldest part first.

{{flags}}
Examples:
  toolscope tap --upstream http://127.0.0.1:8080/mcp --record session.jsonl
  toolscope mock session.jsonl --listen 127.0.0.1:7070 --speed 10
  MCP client configuration: {"command": "toolscope", "args": ["mock", "session.jsonl", "--stdio"]}
`

// mockStdioChild marks the process a stdio mock runs under its stdio tap:
// it serves on its pipes and nothing else.
const mockStdioChild = "TOOLSCOPE_MOCK_STDIO_CHILD"

// mockCommand is `toolscope mock`: a recorded server, served again.
type mockCommand struct {
	fs     *flagSet
	out    outputFlags
	live   liveFlags
	listen string
	speed  float64
	stdio  bool
}

func newMockCommand() *mockCommand {
	c := &mockCommand{fs: newFlagSet("mock")}
	c.fs.StringVar(&c.listen, "listen", tap.DefaultListen, "where the mock listens: `ADDR` (addresses off loopback warn)")
	c.fs.Float64Var(&c.speed, "speed", 1, "timing scale `F` of progress and answers: 2 twice as fast, 0 at once")
	c.fs.BoolVar(&c.stdio, "stdio", false, "serve on stdin and stdout, as a stdio MCP server (events to --record only)")
	c.fs.group(groupOutput, c.out.registerMode)
	c.fs.group(groupOutput, c.out.register)
	c.fs.group(groupOutput, c.out.registerMetrics)
	c.fs.group(groupCallChecks, c.live.registerCallChecks)
	return c
}

func (c *mockCommand) flags() *flagSet { return c.fs }

// Run serves RECORDING until SIGINT or SIGTERM (HTTP), or until stdin ends
// (--stdio); 1 when the recording holds nothing to serve.
func (c *mockCommand) Run(args []string) int {
	pos, code, ok := c.fs.parse(mockUsage, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) != 1:
		return usageError("mock", "want exactly one RECORDING, got %d arguments", len(pos))
	case c.speed < 0:
		return usageError("mock", "--speed must be 0 or more")
	case c.stdio && c.out.output != "":
		return usageError("mock", "--output %s: with --stdio, stdout belongs to the MCP protocol; events go to --record FILE", c.out.output)
	}
	rec := pos[0]
	ctx, stop := signalContext()
	defer stop()
	script, err := mock.LoadRecording(ctx, rec)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope mock: %s: %s\n", rec, errText("mock", err))
		return 1
	}
	sv := mock.NewServer(script, c.speed)
	if c.stdio {
		if os.Getenv(mockStdioChild) != "" {
			if err := sv.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
				fmt.Fprintf(os.Stderr, "toolscope mock: %v\n", err)
				return 1
			}
			return 0
		}
		return c.runStdio(rec)
	}
	// The mock answers on a loopback port of its own; the tap in front of
	// it, on --listen, reports its calls as any tap does.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope mock: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: sv.HTTPHandler()}
	go srv.Serve(ln)
	defer srv.Close()
	what := fmt.Sprintf("%s of %s from %s", model.Plural(script.Calls, "call"), model.Plural(len(script.Tools()), "tool"), rec)
	return runLive(liveRun{cmd: "mock", fs: c.fs, out: &c.out, live: &c.live, title: "mock " + rec,
		taps: []tap.Config{{Name: "mock", Listen: c.listen, Upstream: "http://" + ln.Addr().String()}},
		started: func(src *sources) {
			for _, t := range src.taps {
				fmt.Fprintf(os.Stderr, "toolscope mock: serving %s on http://%s\n", what, t.Addr())
			}
		},
		main: func(ctx context.Context, _ model.Sink) error {
			<-ctx.Done() // serves until SIGINT or SIGTERM (or the screen quits)
			return nil
		}})
}

// runStdio runs this program again as the stdio server, under a stdio tap
// that reports its calls (to --record) as a tap's.
func (c *mockCommand) runStdio(rec string) int {
	cfg, code := stdioTapConfig(&c.live, "mock")
	if code != 0 {
		return code
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope mock: %v\n", err)
		return 1
	}
	cfg.RecordBodyLimit = c.out.tapBodyLimit()
	c.out.redactor = model.NewRedactor(model.RedactionConfig{Names: c.out.redact, Secrets: secretStrings(cfg.Secrets)})
	p, err := newPipeline(c.out, "none")
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope mock: %v\n", err)
		return 1
	}
	os.Setenv(mockStdioChild, "1") // the child serves; its environment is this one's
	command := []string{self, "mock", "--stdio", "--speed", strconv.FormatFloat(c.speed, 'g', -1, 64), rec}
	exit, err := tap.RunStdio(context.Background(), cfg, command, os.Stdin, os.Stdout, os.Stderr, p.hub)
	p.close("mock")
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope mock: %s\n", errText("mock", err))
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return 127
		}
		return 2
	}
	return exit
}
