// Package tap is toolscope's tap: a reverse proxy placed in front of an MCP
// server that forwards every byte unchanged and, on a copy read off to the
// side, reports each tools/call, its progress and its result as model events.
package tap

import (
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"time"

	"toolscope/model"
)

// Defaults and limits of Config.
const (
	DefaultListen        = "127.0.0.1:7070"
	DefaultName          = "tap"
	DefaultTimeout       = 300 * time.Second
	MinTimeout           = 1 * time.Second
	MaxTimeout           = 1800 * time.Second
	DefaultMaxParseBytes = 8 << 20
	// minParseBytes keeps a tiny flag value from making every call unparseable.
	minParseBytes = 4 << 10
)

// Config describes one tap.
type Config struct {
	Name     string // source_name of its events (default "tap")
	Listen   string // address Start listens on (default 127.0.0.1:7070)
	Upstream string // MCP endpoint URL, e.g. http://127.0.0.1:8080/mcp

	InstanceID   string   // expected token aud
	InstanceName string   // the instance's name, for agent-facing tool names
	Secrets      [][]byte // context secrets (several during a rotation); none => decode only

	Timeout       time.Duration // the platform's tool timeout (default 300 s; 1 s..1800 s)
	Enforce       bool          // answer failed verifications as the contract says, do not forward (needs Secrets)
	MaxParseBytes int64         // most bytes of one body or SSE event parsed on the side (default 8 MiB)
	// MaxBufferedBytes bounds the request-body bytes the tap holds at once,
	// over all requests (default 64 MiB; at least MaxParseBytes). See reqbody.go.
	MaxBufferedBytes int64
	SoatPrefix       string // SOAT header prefix ("" => soat.DefaultPrefix)
	// CredentialHeader is the instance's static credential header. Empty
	// means Authorization, whose presence is shown but not required; a
	// configured header is required (a missing one is a 401).
	CredentialHeader string
	// RewriteHost sends the upstream URL's host as Host (a name-based
	// upstream needs it). The upstream can then no longer see a rebinding
	// Host, so the tap refuses one itself when it listens on loopback.
	RewriteHost bool

	// RecordBodyLimit, when over 0, makes the tap emit a wire event per
	// exchange (stdio: per line) with what was sent, each body kept up to
	// this many bytes (--record-body-limit; see capture.go).
	RecordBodyLimit int64

	// Transport reaches the upstream; nil uses a tuned clone of
	// http.DefaultTransport with transparent compression off (so the
	// upstream sees exactly the client's Accept-Encoding).
	Transport http.RoundTripper

	// parseGrace overrides defaultParseGrace (tests).
	parseGrace time.Duration
	// sideWorkStarts, when set, is called as an exchange's side work starts
	// (tests: it holds one back to read the exchanges out of order).
	sideWorkStarts func(seq uint64)
}

// withDefaults validates cfg and fills in its defaults.
func (cfg Config) withDefaults() (Config, *url.URL, error) {
	if cfg.Upstream == "" {
		return cfg, nil, errors.New("tap: --upstream URL is required")
	}
	u, err := url.Parse(cfg.Upstream)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text holds the whole URL, credentials included
		}
		return cfg, nil, fmt.Errorf("tap: --upstream: %v", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, nil, fmt.Errorf("tap: --upstream %q: want an http:// or https:// URL with a host", model.RedactURL(u))
	}
	cfg, err = cfg.withLimits()
	return cfg, u, err
}

// withLimits validates and fills in what every tap shares, the stdio tap
// (which has no upstream URL) included.
func (cfg Config) withLimits() (Config, error) {
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.parseGrace == 0 {
		cfg.parseGrace = defaultParseGrace
	}
	if cfg.Timeout < MinTimeout || cfg.Timeout > MaxTimeout {
		return cfg, fmt.Errorf("tap: --timeout %v is outside 1s..1800s (the range the contract allows)", cfg.Timeout)
	}
	if cfg.Enforce && len(cfg.Secrets) == 0 {
		// Without a secret no call can be verified: --enforce would forward
		// context-bearing calls it only pretends to check.
		return cfg, errors.New("tap: --enforce needs a context secret (TOOLSCOPE_CONTEXT_SECRET or --secret-file)")
	}
	if cfg.MaxParseBytes == 0 {
		cfg.MaxParseBytes = DefaultMaxParseBytes
	}
	if cfg.MaxParseBytes < minParseBytes {
		return cfg, fmt.Errorf("tap: --max-parse-bytes %d is below %d", cfg.MaxParseBytes, minParseBytes)
	}
	if cfg.MaxBufferedBytes == 0 {
		cfg.MaxBufferedBytes = max(DefaultMaxBufferedBytes, cfg.MaxParseBytes)
	}
	if cfg.MaxBufferedBytes < cfg.MaxParseBytes {
		return cfg, fmt.Errorf("tap: --max-buffered-bytes %d is below --max-parse-bytes %d", cfg.MaxBufferedBytes, cfg.MaxParseBytes)
	}
	if cfg.CredentialHeader != "" {
		cfg.CredentialHeader = textproto.CanonicalMIMEHeaderKey(cfg.CredentialHeader)
	}
	return cfg, nil
}
