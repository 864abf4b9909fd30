package otlp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"toolscope/model"
)

// scopeName is the instrumentation scope of the spans.
const scopeName = "toolscope/output/otlp"

// Exporter turns model events into spans. It is a model.Sink: Emit only
// updates bounded per-call state under a mutex; spans are made by its own
// goroutine once an attempt has ended, and sent by the SDK's batch
// processor, so a slow or absent collector never slows a source.
type Exporter struct {
	cfg      Config
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	watch    *watchedExporter

	// exportMu serialises the making of spans (Flush may run beside loop).
	exportMu sync.Mutex

	mu     sync.Mutex
	calls  *callTable
	due    []*attemptState // ended attempts, in the order their linger ends
	seen   *model.SeenIDs  // feed event ids already folded in (a reconnect replays the recent past)
	closed bool
	// check connects to the collector once, on the first event: by then
	// the pipeline is whole and the state it reports reaches every output.
	check sync.Once

	stop chan struct{}
	done chan struct{}
	now  func() time.Time // wall clock of linger and idleness (tests move it)
}

var _ model.Sink = (*Exporter)(nil)

// quietErrors keeps the SDK's own error reports off stderr (the TUI owns
// the terminal); export failures reach the user as one warning event.
var quietErrors sync.Once

// New builds an exporter sending to cfg.URL + /v1/traces (or the standard
// environment), and starts its goroutine. Close it to flush.
func New(ctx context.Context, cfg Config) (*Exporter, error) {
	cfg = cfg.withDefaults()
	opts := []otlptracehttp.Option{
		// A redirect is followed only to the same scheme, host and port:
		// the export's headers (an API key) go nowhere else.
		otlptracehttp.WithHTTPClient(&http.Client{Timeout: cfg.ExportTimeout,
			Transport: http.DefaultTransport, CheckRedirect: model.RedirectRule("OpenTelemetry export", true)}),
		otlptracehttp.WithTimeout(cfg.ExportTimeout),
		// A collector that is down should say so within one export, not
		// after a minute of retries; the next batch is the retry.
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond,
			MaxInterval: 2 * time.Second, MaxElapsedTime: cfg.ExportTimeout}),
	}
	if cfg.URL != "" {
		u, err := tracesURL(cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("--otlp %s: %w", cfg.URL, err)
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u))
	} else if !Configured("") {
		return nil, fmt.Errorf("no OTLP endpoint: give a URL or set %s", envEndpoint)
	}
	if len(cfg.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
	}
	client, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry exporter: %w", err)
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read last, win. A
	// malformed variable loses only its own attributes.
	res, err := resource.New(ctx, resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(cfg.ServiceName)), resource.WithFromEnv())
	if res == nil {
		return nil, fmt.Errorf("OpenTelemetry resource: %w", err)
	}
	quietErrors.Do(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {})) })

	e := &Exporter{cfg: cfg, calls: newCallTable(cfg.MaxCalls), seen: model.NewSeenIDs(maxSeenIDs), stop: make(chan struct{}), done: make(chan struct{}), now: time.Now}
	e.watch = &watchedExporter{SpanExporter: client, onFailure: e.exportFailed, onState: e.stateChanged, endpoint: shownEndpoint(cfg.URL)}
	bsp := sdktrace.NewBatchSpanProcessor(e.watch,
		sdktrace.WithMaxQueueSize(cfg.QueueSize),
		sdktrace.WithMaxExportBatchSize(min(512, cfg.QueueSize)),
		sdktrace.WithBatchTimeout(cfg.BatchTimeout),
		sdktrace.WithExportTimeout(cfg.ExportTimeout))
	// Every call is recorded: the monitor's job is to see them all, whatever
	// the agent's own sampling said.
	e.provider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bsp), sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.AlwaysSample()))
	e.tracer = e.provider.Tracer(scopeName, trace.WithSchemaURL(semconv.SchemaURL))
	go e.loop()
	return e, nil
}

// NewIfConfigured is New when export is asked for (cfg.URL, from --otlp,
// or the standard variables), and nil without an error when it is not.
func NewIfConfigured(ctx context.Context, cfg Config) (*Exporter, error) {
	if !Configured(cfg.URL) {
		return nil, nil
	}
	return New(ctx, cfg)
}

// Emit folds one event into its call. It never waits for the network.
func (e *Exporter) Emit(ev model.Event) {
	e.check.Do(func() { go e.checkCollector() })
	if !ev.IsCallEvent() {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || ev.EventID != "" && !e.seen.Add(ev.EventID) {
		return
	}
	now := e.now()
	for _, a := range e.calls.apply(&ev, now) {
		e.schedule(a, now)
	}
}

// schedule queues an attempt whose span can be made once its linger ends.
func (e *Exporter) schedule(a *attemptState, now time.Time) {
	if a.queued {
		return
	}
	a.queued = true
	a.exportAt = now.Add(e.cfg.Linger)
	if a.unfinished { // let go of: no other view is coming
		a.exportAt = now
	}
	e.due = append(e.due, a)
}

func (e *Exporter) loop() {
	defer close(e.done)
	tick := time.NewTicker(max(e.cfg.Linger/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-tick.C:
			e.exportDue(false)
		}
	}
}

// exportDue makes the spans of the attempts whose linger has ended (all of
// them when flushing), outside the lock: their state no longer changes.
func (e *Exporter) exportDue(all bool) {
	e.mu.Lock()
	now := e.now()
	for _, a := range e.calls.idle(now, e.cfg.MaxIdle) {
		e.schedule(a, now)
	}
	n := 0
	for n < len(e.due) && (all || !e.due[n].exportAt.After(now)) {
		e.due[n].sealed = true
		n++
	}
	ready := append([]*attemptState(nil), e.due[:n]...)
	e.due = append(e.due[:0], e.due[n:]...)
	e.mu.Unlock()
	for _, a := range ready {
		e.export(a)
	}
}

// Flush makes the spans of every attempt that has ended (without waiting
// for their linger) and sends what the SDK holds.
func (e *Exporter) Flush(ctx context.Context) error {
	e.exportDue(true)
	return e.provider.ForceFlush(ctx)
}

// Close exports every attempt, the running ones as unfinished, and flushes,
// waiting at most CloseTimeout for the collector. Later events are ignored.
// A collector that fails is said by the otlp_export_failed warning, not by
// Close's error: it never changes how toolscope exits.
func (e *Exporter) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	now := e.now()
	for _, a := range e.calls.all() {
		a.markUnfinished()
		e.schedule(a, now)
	}
	e.mu.Unlock()
	close(e.stop)
	<-e.done
	e.exportDue(true)
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.CloseTimeout)
	defer cancel()
	_ = e.provider.Shutdown(ctx) // its failure went through watchedExporter
	return nil
}

// exportFailed is the watched exporter's report of a failed export.
func (e *Exporter) exportFailed(msg string) {
	e.report(model.Event{Kind: model.KindWarning, Code: string(model.WarnOTLPExportFailed), Message: msg})
}

// stateChanged is the watched exporter's report of the export's state.
func (e *Exporter) stateChanged(state, detail string) {
	e.report(model.Event{Kind: model.KindSourceStatus, State: state, Detail: detail})
}

func (e *Exporter) report(ev model.Event) {
	if e.cfg.OnEvent == nil {
		return
	}
	ev.Time, ev.Source, ev.SourceName = time.Now().UTC(), e.cfg.Source, e.cfg.SourceName
	e.cfg.OnEvent(ev)
}

// checkCollector connects to the collector once (a TCP connection, no
// request) so the export's state is known before the first span is sent.
func (e *Exporter) checkCollector() {
	addr := collectorAddr(e.cfg.URL)
	if addr == "" {
		return
	}
	conn, err := net.DialTimeout("tcp", addr, collectorCheckTimeout)
	if err == nil {
		conn.Close()
	}
	e.watch.checked(err)
}

// collectorCheckTimeout bounds the connection made at start.
const collectorCheckTimeout = 3 * time.Second
