package cli

import (
	"context"
	"fmt"
	"os"

	"toolscope/model"
	"toolscope/stream/tap"
)

// liveRun is what one command that shows events brings to the skeleton:
// its flags, its own taps and its own work. runLive does the rest, the
// same for watch, tap, demo and replay.
type liveRun struct {
	cmd   string
	fs    *flagSet
	out   *outputFlags
	live  *liveFlags   // the --feed/--tap flags; nil for a command without (replay)
	taps  []tap.Config // the command's own taps, besides --tap
	title string       // the screen's title
	// openCall opens this call's detail on the screen ("" for the table).
	openCall string
	// started runs once the taps listen, when no screen is shown (tap
	// says where on stderr).
	started func(*sources)
	// main is the command's own work, run beside the feeds; nil when the
	// feeds are the work (watch).
	main func(ctx context.Context, sink model.Sink) error
}

// runLive is the skeleton every live command shares: sources → hub →
// outputs → screen or lines → exit code.
func runLive(r liveRun) int {
	mode, ok := r.out.resolve(r.cmd)
	if !ok {
		return 2
	}
	if err := r.out.mcp.check(); err != nil {
		return usageError(r.cmd, "%v", err)
	}
	redaction := model.RedactionConfig{Names: r.out.redact}
	if r.live != nil {
		r.live.settle(r.fs, mode)
		redaction.Names = append(redaction.Names, r.live.credentialHeader)
		redaction.Secrets = append(redaction.Secrets, os.Getenv(apiKeyEnv))
		r.live.recordBodyLimit = r.out.tapBodyLimit()
	}
	r.out.redactor = model.NewRedactor(redaction)
	p, err := newPipeline(*r.out, mode)
	if err != nil {
		return exitCode(r.cmd, err)
	}
	src := &sources{}
	if r.live != nil {
		var code int
		if src, code = r.live.build(r.cmd, p.hub, r.taps); src == nil {
			p.close(r.cmd)
			return code
		}
		r.out.redactor.AddSecrets(r.live.secretValues()...) // loaded by build
	}
	if err := src.start(); err != nil {
		p.close(r.cmd)
		return exitCode(r.cmd, err)
	}
	if r.started != nil && mode != "tui" {
		r.started(src)
	}
	ctx, stop := signalContext()
	defer stop()
	p.title = r.title
	if p.mcp != nil {
		if mode == "tui" {
			p.title += " · MCP " + p.mcp.URL()
		} else {
			fmt.Fprintf(os.Stderr, "toolscope %s: serving MCP at %s\n", r.cmd, p.mcp.URL())
		}
	}
	err = p.runWithScreen(ctx, func(ctx context.Context) error {
		return src.run(ctx, p.hub, r.main)
	}, r.openCall)
	if mode != "tui" { // the screen stays until q; lines end with the work
		p.serveUntilInterrupted(ctx, r.cmd)
	}
	// The sources stop before the outputs close, so every event they
	// emitted is written.
	src.shutdown(src.taps)
	p.close(r.cmd)
	return exitCode(r.cmd, err)
}
