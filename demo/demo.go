// Package demo runs toolscope's demo on this machine alone, on loopback: a
// real MCP server (the official Go SDK) that verifies AgentArea context tokens
// and keeps an idempotency store; a simulated AgentArea platform that creates
// tasks, signs a token per call, calls the server through a real toolscope
// tap, relays progress under the 0.5 s rule and serves each task's feed over
// real SSE; and toolscope's real feed client watching those feeds. The tap and
// the feed clients emit into the caller's sink, where one store joins them.
package demo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"toolscope/model"
	"toolscope/stream/feed"
)

// Options of a demo run.
type Options struct {
	// Speed scales the scenario clock: 1 (or 0) is real time, where the run
	// takes about 22 s; at 10 it takes about 7 s. It scales time, not
	// outcomes: the platform's 0.5 s relay rule runs on the scenario clock,
	// and the instance timeout (10 s) scales but never goes below 5 s (so a
	// busy machine does not time out calls meant to succeed), with the
	// export sized by the timeout in force. Token lifetimes keep real values.
	Speed float64
	// RecordBodyLimit makes the demo's taps capture what they pass, for
	// --record (tap.Config.RecordBodyLimit); 0: not.
	RecordBodyLimit int64
}

// Source names of the demo's own components.
const (
	sheetsTapName = "tap:demo-sheets"
	soatTapName   = "tap:soat-orders"
	demoName      = "demo"
)

// Run runs every scenario and returns when all have ended, every feed has seen
// its task end and the taps have emitted their last event. It returns an error
// when a component could not start or failed on the way (each failure is also
// emitted as a warning), and ctx.Err() when cancelled.
func Run(ctx context.Context, opts Options, sink model.Sink) error {
	clk := newPace(opts.Speed)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	c := &components{recordBodyLimit: opts.RecordBodyLimit}
	defer c.close()
	if err := c.start(clk, sink); err != nil {
		return err
	}

	p := &platform{clk: clk, inst: c.inst, rpc: newRPCClient(), feeds: c.feeds, planned: c.planned}
	status := func(state, detail string) {
		sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceDemo, SourceName: demoName,
			Kind: model.KindSourceStatus, State: state, Detail: detail})
	}
	fails := &failures{sink: sink}
	status(model.StateConnected, fmt.Sprintf("MCP server %s behind %s at %s; task feeds at %s; speed %s",
		c.server.URL(), sheetsTapName, c.inst.URL, c.feeds.API(), strconv.FormatFloat(clk.speed, 'g', -1, 64)))

	if _, err := p.registerInstance(ctx); err != nil {
		fails.add(err)
	}

	feedCtx, stopFeeds := context.WithCancel(context.WithoutCancel(ctx))
	defer stopFeeds()
	watchers := runScenarios(ctx, feedCtx, p, c, sink, fails)
	drainFeeds(ctx, watchers, stopFeeds, fails)
	if ctx.Err() != nil {
		status(model.StateEnded, "cancelled")
		return ctx.Err()
	}
	status(model.StateEnded, "every scenario has ended")
	return fails.err()
}

// runScenarios starts every task, a feed watcher for each and the SOAT call,
// and returns when every call has ended; the watchers, under feedCtx, read on
// until their tasks' feeds end.
func runScenarios(ctx, feedCtx context.Context, p *platform, c *components, sink model.Sink, fails *failures) *sync.WaitGroup {
	clk, feeds, apiKey := p.clk, c.feeds, c.apiKey
	start := time.Now()
	var calls, watchers sync.WaitGroup
	for _, tp := range plan() {
		t := newTask(tp)
		feeds.open(t)
		watchers.Add(1)
		go func() {
			defer watchers.Done()
			cfg := feed.Config{URL: feed.FeedURL(feeds.API(), t.Workspace, t.AgentID, t.ID), Name: tp.Feed,
				APIKey: apiKey, MaxBackoff: time.Second,
				// The platform relays at 0.5 s of scenario time: so is it checked.
				RelayInterval: time.Duration(float64(model.RelayInterval) / clk.speed)}
			if err := feed.Run(feedCtx, cfg, sink); err != nil && feedCtx.Err() == nil {
				fails.add(fmt.Errorf("%s: %w", tp.Feed, err))
			}
		}()
		calls.Add(1)
		go func() {
			defer calls.Done()
			p.runTask(ctx, start, t, tp)
		}()
	}
	calls.Add(1)
	go func() {
		defer calls.Done()
		if clk.until(ctx, start, soatAt) == nil {
			if err := soatCall(ctx, c.soatURL); err != nil && ctx.Err() == nil {
				fails.add(err)
			}
		}
	}()
	calls.Add(1)
	go func() {
		defer calls.Done()
		if clk.until(ctx, start, confirmAt) == nil {
			if err := confirmedCall(ctx, clk, c.soatURL); err != nil && ctx.Err() == nil {
				fails.add(err)
			}
		}
	}()
	calls.Wait()
	return &watchers
}

// drainFeeds waits for the feed watchers, then stops any still reading.
func drainFeeds(ctx context.Context, watchers *sync.WaitGroup, stopFeeds context.CancelFunc, fails *failures) {
	// A feed ends at its task's terminal event; give the watchers a moment
	// to read it, and stop them if they have not (or if ctx ended).
	drained := make(chan struct{})
	go func() {
		watchers.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-ctx.Done():
	case <-time.After(feedDrain):
		fails.add(errors.New("a task feed did not end after its task completed"))
	}
	stopFeeds()
	<-drained
}

// feedDrain bounds how long the feeds may take to see their tasks end.
const feedDrain = 10 * time.Second

// failures collects what went wrong during a run, each also emitted as a
// warning so a user watching the screen sees it.
type failures struct {
	sink model.Sink
	mu   sync.Mutex
	errs []error
}

func (f *failures) add(err error) {
	f.mu.Lock()
	f.errs = append(f.errs, err)
	f.mu.Unlock()
	f.sink.Emit(model.Event{Time: time.Now().UTC(), Source: model.SourceDemo, SourceName: demoName,
		Kind: model.KindWarning, Code: string(model.WarnDemoFailed), Message: err.Error()})
}

func (f *failures) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.errs...)
}
