// Package otlp exports tool calls as OpenTelemetry spans over OTLP/HTTP
// (protobuf), one span per attempt of a call, through the official SDK's
// batch span processor: export never blocks the sources. See
// docs/opentelemetry.md for the attributes.
package otlp

import (
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"toolscope/model"
)

// Config of an Exporter. Only URL or the standard environment is required.
type Config struct {
	// URL of the collector's OTLP/HTTP receiver (http://localhost:4318);
	// spans go to URL + /v1/traces. Empty: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
	// or OTEL_EXPORTER_OTLP_ENDPOINT, as the SDK reads them. The URL wins.
	URL string
	// Headers sent with every export (an API key). Empty: the SDK reads
	// OTEL_EXPORTER_OTLP_HEADERS. Their values are never shown.
	Headers map[string]string
	// ServiceName is the resource's service.name (default "toolscope").
	ServiceName string
	// OnEvent is told of the export's state as source.status events under
	// SourceName: connected once the collector answers (at start, a
	// connection to it; then each export that succeeds after one that
	// failed), failing with why when it does not; and, once per outage, a
	// warning (code otlp_export_failed). It is called from the exporter's
	// own goroutines, never from Emit.
	OnEvent func(model.Event)
	// Source and SourceName of those events (default: SourceName "otlp").
	Source, SourceName string

	// Linger is how long an attempt that ended waits for the other sources'
	// view of it (a feed's result after a tap's) before its span is made.
	// Span times are the wire times whatever the linger. Default 1 s.
	Linger time.Duration
	// MaxCalls bounds the calls held (running, or ended and remembered to
	// number retries); past it the least recently seen one is let go, its
	// running attempts exported as unfinished. Default 4096.
	MaxCalls int
	// MaxIdle lets go of a call that saw no event for that long. Default 30 min.
	MaxIdle time.Duration
	// QueueSize is the SDK's span queue: when the collector is slow, spans
	// past it are dropped rather than held. Default 2048.
	QueueSize int
	// BatchTimeout is the longest a span waits in the queue. Default 2 s.
	BatchTimeout time.Duration
	// ExportTimeout bounds one export request, retries included. Default 10 s.
	ExportTimeout time.Duration
	// CloseTimeout bounds the final flush in Close. Default 5 s.
	CloseTimeout time.Duration
}

// Defaults.
const (
	defaultServiceName   = "toolscope"
	defaultLinger        = time.Second
	defaultMaxCalls      = 4096
	defaultMaxIdle       = 30 * time.Minute
	defaultQueueSize     = 2048
	defaultBatchTimeout  = 2 * time.Second
	defaultExportTimeout = 10 * time.Second
	defaultCloseTimeout  = 5 * time.Second
	// maxSpanEvents bounds the span events (progress, warnings) kept per
	// attempt: the first ones and the latest ones.
	maxSpanEvents = 64
	// tracesPath is appended to Config.URL.
	tracesPath = "/v1/traces"
)

// Standard OpenTelemetry variables the SDK reads.
const (
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
)

// Configured says whether export is asked for: a URL, or the standard
// endpoint variables. The CLI builds an Exporter only then.
func Configured(flagURL string) bool {
	return flagURL != "" || os.Getenv(envEndpoint) != "" || os.Getenv(envTracesEndpoint) != ""
}

func (c Config) withDefaults() Config {
	if c.ServiceName == "" {
		c.ServiceName = defaultServiceName
	}
	if c.SourceName == "" {
		c.SourceName = "otlp"
	}
	if c.Linger <= 0 {
		c.Linger = defaultLinger
	}
	if c.MaxCalls <= 0 {
		c.MaxCalls = defaultMaxCalls
	}
	if c.MaxIdle <= 0 {
		c.MaxIdle = defaultMaxIdle
	}
	if c.QueueSize <= 0 {
		c.QueueSize = defaultQueueSize
	}
	if c.BatchTimeout <= 0 {
		c.BatchTimeout = defaultBatchTimeout
	}
	if c.ExportTimeout <= 0 {
		c.ExportTimeout = defaultExportTimeout
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = defaultCloseTimeout
	}
	return c
}

// tracesURL is URL + /v1/traces (kept as is when it already ends so).
func tracesURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", errors.New("want http://host:port or https://host:port")
	}
	if !strings.HasSuffix(u.Path, tracesPath) {
		u.Path = strings.TrimSuffix(u.Path, "/") + tracesPath
	}
	return u.String(), nil
}

// collectorAddr is the collector's host:port, from the URL or the standard
// variables ("" when neither names one).
func collectorAddr(explicit string) string {
	raw, _ := tracesURL(explicit)
	if raw == "" {
		raw = os.Getenv(envTracesEndpoint)
	}
	if raw == "" {
		raw = os.Getenv(envEndpoint)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// shownEndpoint is where spans go, as a message may show it (credentials
// in the URL redacted).
func shownEndpoint(explicit string) string {
	raw, _ := tracesURL(explicit)
	if raw == "" {
		raw = os.Getenv(envTracesEndpoint)
	}
	if raw == "" {
		if raw = os.Getenv(envEndpoint); raw != "" {
			raw = strings.TrimSuffix(raw, "/") + tracesPath
		}
	}
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return "the OTLP endpoint"
	}
	return model.RedactURL(u)
}
