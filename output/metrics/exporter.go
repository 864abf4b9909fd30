// Package metrics serves what toolscope sees as Prometheus metrics at
// /metrics, made with the OpenTelemetry SDK's metrics and its Prometheus
// exporter: the MCP semantic conventions' mcp.client.operation.duration
// histogram, and toolscope's own counters (calls, progress, context
// verdicts, warnings by code). It is an output of the hub: Emit only
// records into the SDK's in-memory aggregation, never waits on a scraper.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"toolscope/model"
)

// Defaults of a Config.
const (
	// DefaultPort is where a bare --metrics-listen host or an empty port
	// listens (the Prometheus exporters' customary port).
	DefaultPort = "9464"
	// defaultMaxToolNames distinct tool names get their own label value;
	// later ones share "_OTHER".
	defaultMaxToolNames = 200
	// defaultSeriesLimit caps the series of each instrument (mcpsnoop caps
	// at 2,000): past it the SDK folds new attribute sets into one series
	// labelled otel_metric_overflow="true".
	defaultSeriesLimit = 2000
)

// Config says where the endpoint listens and how many label values it keeps.
type Config struct {
	// Listen is ADDR: "127.0.0.1:9464", ":9464" or "9464" (both loopback),
	// "[::1]:0" (any free port). A host beyond loopback is served, with a
	// listen_not_loopback warning.
	Listen string
	// OnEvent is told what the endpoint says of itself: its state (an
	// output's, as the OpenTelemetry export reports one: no source kind,
	// source_name "metrics") and the warning above.
	OnEvent      func(model.Event)
	MaxToolNames int
	SeriesLimit  int
}

// Exporter is the hub's metrics output and the /metrics endpoint.
type Exporter struct {
	provider *sdkmetric.MeterProvider
	rec      *recorder
	srv      *http.Server
	ln       net.Listener
	served   chan struct{}
}

// New builds the instruments and starts serving /metrics.
func New(cfg Config) (*Exporter, error) {
	if cfg.MaxToolNames <= 0 {
		cfg.MaxToolNames = defaultMaxToolNames
	}
	if cfg.SeriesLimit <= 0 {
		cfg.SeriesLimit = defaultSeriesLimit
	}
	addr, loopback := ListenAddr(cfg.Listen)
	registry := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(registry), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp),
		sdkmetric.WithCardinalityLimit(cfg.SeriesLimit))
	rec, err := newRecorder(provider.Meter(scopeName), cfg.MaxToolNames)
	if err != nil {
		provider.Shutdown(context.Background())
		return nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		provider.Shutdown(context.Background())
		return nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	x := &Exporter{provider: provider, rec: rec, ln: ln, served: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(x.served)
		x.srv.Serve(ln)
	}()
	if cfg.OnEvent != nil {
		now := time.Now().UTC()
		cfg.OnEvent(model.Event{Time: now, SourceName: "metrics", Kind: model.KindSourceStatus, State: model.StateConnected,
			Detail: "serving http://" + x.Addr() + "/metrics"})
		if !loopback {
			cfg.OnEvent(model.Event{Time: now, SourceName: "metrics", Kind: model.KindWarning, Code: string(model.WarnListenNotLoopback),
				Message: fmt.Sprintf("the metrics endpoint listens on %s, reachable from other machines: tool names and call counts are visible there", ln.Addr())})
		}
	}
	return x, nil
}

// scopeName is the instrumentation scope of the instruments.
const scopeName = "toolscope/output/metrics"

// ListenAddr is the address to listen on for ADDR: a missing host is
// loopback (toolscope listens on loopback unless told otherwise, unlike
// Go's ":port"), a missing port DefaultPort. loopback says whether it stays
// on this machine.
func ListenAddr(listen string) (addr string, loopback bool) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil { // "9464" or "127.0.0.1" alone
		if n, perr := strconv.Atoi(listen); perr == nil && n >= 0 && n < 1<<16 {
			host, port = "", listen
		} else {
			host, port = listen, ""
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = DefaultPort
	}
	return net.JoinHostPort(host, port), model.IsLoopback(host)
}

// Addr is where /metrics is served ("127.0.0.1:9464").
func (x *Exporter) Addr() string { return x.ln.Addr().String() }

// Emit records what one event says; it never blocks on a scrape.
func (x *Exporter) Emit(e model.Event) { x.rec.record(e) }

// Close stops serving and shuts the SDK down.
func (x *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := x.srv.Shutdown(ctx)
	<-x.served
	if perr := x.provider.Shutdown(ctx); err == nil {
		err = perr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = nil // a scrape cut short at exit
	}
	return err
}
