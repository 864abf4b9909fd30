package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"toolscope/model"
	"toolscope/output"
	"toolscope/output/mcpserver"
	"toolscope/output/otlp"
	"toolscope/ui"
)

// pipeline is the store, the hub and its outputs for one run.
type pipeline struct {
	store  *model.Store
	hub    *output.Hub
	output string
	title  string
	mcp    *mcpserver.Server // --mcp-listen, nil without
	// said are the output problems already said on stderr.
	said sync.Map
}

// newPipeline builds the store and the hub over the outputs the flags ask
// for.
func newPipeline(o outputFlags, mode string) (*pipeline, error) {
	opts := model.DefaultOptions()
	if o.maxCalls > 0 {
		opts.MaxFinishedCalls = o.maxCalls
	}
	if o.maxRunningCalls > 0 {
		opts.MaxRunningCalls = o.maxRunningCalls
	}
	// The exporter's reports (its state, a collector that is down) go
	// through the hub, made just after it (they start with the first event).
	// One said while the outputs start (a metrics endpoint off loopback)
	// waits for it.
	var hub atomic.Pointer[output.Hub]
	var earlyMu sync.Mutex
	var early []model.Event
	outs, err := o.outputs(mode, func(e model.Event) {
		earlyMu.Lock()
		h := hub.Load()
		if h == nil {
			early = append(early, e)
		}
		earlyMu.Unlock()
		if h != nil {
			h.Emit(e)
		}
	})
	if err != nil {
		return nil, err
	}
	p := &pipeline{store: model.NewStore(opts), output: mode}
	p.hub = output.NewHub(p.store, outs...)
	if o.redactor != nil {
		p.hub.Redactor = o.redactor
	}
	earlyMu.Lock()
	hub.Store(p.hub)
	earlyMu.Unlock()
	for _, e := range early {
		p.hub.Emit(e)
	}
	if p.mcp, err = o.mcp.start(p.store); err != nil {
		p.hub.Close()
		return nil, err
	}
	p.hub.OnWriteError = func(err error) {
		if mode != "tui" { // the screen shows it as a warning; said on exit too
			p.said.Store(err.Error(), true)
			fmt.Fprintf(os.Stderr, "toolscope: %v (monitoring goes on)\n", err)
		}
	}
	return p, nil
}

// outputs are where events go besides the store: the OpenTelemetry export
// (--otlp, first: it closes first, while the writers can still take its
// last warning), the lines on stdout for --output json|text and the
// --record file.
func (o *outputFlags) outputs(mode string, warn func(model.Event)) ([]output.Output, error) {
	var outs []output.Output
	if otlp.Configured(o.otlp) {
		exp, err := otlp.New(context.Background(), otlp.Config{URL: o.otlp, OnEvent: warn})
		if err != nil {
			return nil, fmt.Errorf("--otlp: %w", err)
		}
		outs = append(outs, exp)
	}
	if o.metricsListen != "" {
		x, err := o.metricsOutput(mode, warn)
		if err != nil {
			closeAll(outs)
			return nil, err
		}
		outs = append(outs, x)
	}
	switch mode {
	case "json":
		outs = append(outs, output.NewWriter(os.Stdout, output.WriterConfig{Name: "stdout", Format: output.FormatJSON}))
	case "text":
		// Lines a reader reads by their time: in time order (output/ordered.go).
		text := output.NewWriter(os.Stdout, output.WriterConfig{Name: "stdout", Format: output.FormatText})
		outs = append(outs, output.InTimeOrder(text, textOrderWindow))
	}
	if o.record != "" {
		rec, err := o.recordingWriter() // record.go: bounded, rotated
		if err != nil {
			closeAll(outs)
			return nil, fmt.Errorf("--record: %w", err)
		}
		outs = append(outs, rec)
	}
	return outs, nil
}

func closeAll(outs []output.Output) {
	for _, out := range outs {
		out.Close()
	}
}

// textOrderWindow is how long --output text holds a line for older ones:
// longer than a tap takes to read a request's body, short for a reader.
const textOrderWindow = 250 * time.Millisecond

// close flushes and closes the outputs, within the hub's bounds. Each
// error is said once: here, unless it was already said when it happened.
func (p *pipeline) close(cmd string) {
	p.closeMCP()
	for _, e := range leafErrors(p.hub.Close()) {
		if _, said := p.said.Load(e.Error()); !said {
			fmt.Fprintf(os.Stderr, "toolscope %s: %v\n", cmd, e)
		}
	}
}

// leafErrors are the errors errors.Join joined, each on its own.
func leafErrors(err error) []error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		if err == nil {
			return nil
		}
		return []error{err}
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, leafErrors(e)...)
	}
	return out
}

// signalContext ends on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// runWithScreen runs work in the background and, for --output tui, the
// screen in the foreground until the user quits; for json/text it waits
// for work. It returns work's error.
func (p *pipeline) runWithScreen(ctx context.Context, work func(context.Context) error, openCall string) error {
	if p.output != "tui" {
		return work(ctx)
	}
	// The screen stays until the user quits; work going on (or ending)
	// does not close it, so what it captured can still be read.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workErr := make(chan error, 1)
	go func() { workErr <- work(ctx) }()
	screenErr := ui.Run(ctx, p.store, ui.Options{OpenCall: openCall, Title: p.title})
	cancel()
	// Work is waited for even when the screen failed: what it still emits
	// reaches --record before the outputs close.
	err := <-workErr
	if screenErr != nil {
		return screenErr
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func exitCode(cmd string, err error) int {
	if err == nil || errors.Is(err, context.Canceled) {
		return 0
	}
	fmt.Fprintf(os.Stderr, "toolscope %s: %s\n", cmd, errText(cmd, err))
	return 1
}

// errText is an error as said after "toolscope CMD: ", without the
// command's name said again ("replay: read x", "tap tap: listen ...").
func errText(cmd string, err error) string {
	msg := err.Error()
	for _, p := range []string{cmd + " " + cmd + ": ", cmd + ": "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}
