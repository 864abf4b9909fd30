package otlp

import (
	"context"
	"strings"
	"testing"
)

// The standard variables work: the endpoint (base URL, /v1/traces added by
// the SDK) and the headers.
func TestStandardEnvironment(t *testing.T) {
	c := newCollector(t)
	t.Setenv(envEndpoint, c.URL)
	t.Setenv(envHeaders, "x-honeycomb-team=env-key-123")
	t.Setenv("OTEL_SERVICE_NAME", "toolscope-ci")
	if !Configured("") {
		t.Fatal("Configured with the endpoint variable set")
	}
	e, _ := newTestExporter(t, "", nil)
	emitCalls(e, 1, 0)
	e.Close()
	if len(c.all()) != 1 {
		t.Fatalf("%d spans", len(c.all()))
	}
	if got := c.firstHeader().Get("X-Honeycomb-Team"); got != "env-key-123" {
		t.Errorf("header from %s: %q", envHeaders, got)
	}
	if v, _ := attr(c.resourceAttrs(), "service.name"); v.GetStringValue() != "toolscope-ci" {
		t.Errorf("service.name %v: OTEL_SERVICE_NAME should win", v)
	}
}

// The URL and headers given win over the environment.
func TestExplicitURLAndHeadersWin(t *testing.T) {
	c := newCollector(t)
	t.Setenv(envEndpoint, deadURL(t))
	t.Setenv(envHeaders, "x-key=from-env")
	e, w := newTestExporter(t, c.URL+"/", func(cfg *Config) { cfg.Headers = map[string]string{"x-key": "from-config"} })
	emitCalls(e, 1, 0)
	e.Close()
	if len(c.all()) != 1 || len(w.list()) != 0 {
		t.Fatalf("%d spans, warnings %v: the URL given did not win", len(c.all()), w.list())
	}
	if got := c.firstHeader().Get("X-Key"); got != "from-config" {
		t.Errorf("header %q", got)
	}
}

func TestNoEndpointIsAnError(t *testing.T) {
	t.Setenv(envEndpoint, "")
	t.Setenv(envTracesEndpoint, "")
	if Configured("") {
		t.Fatal("Configured with nothing set")
	}
	if _, err := New(context.Background(), Config{}); err == nil {
		t.Fatal("New without an endpoint")
	}
	if e, err := NewIfConfigured(context.Background(), Config{}); e != nil || err != nil {
		t.Fatalf("NewIfConfigured without an endpoint: %v, %v", e, err)
	}
	if _, err := New(context.Background(), Config{URL: "localhost:4318"}); err == nil || !strings.Contains(err.Error(), "http://") {
		t.Fatalf("a URL without a scheme: %v", err)
	}
}

func TestTracesURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:4318":               "http://localhost:4318/v1/traces",
		"http://localhost:4318/":              "http://localhost:4318/v1/traces",
		"https://otel.example:443/otlp":       "https://otel.example:443/otlp/v1/traces",
		"http://localhost:4318/v1/traces":     "http://localhost:4318/v1/traces",
		"http://localhost:4318/x?tenant=acme": "http://localhost:4318/x/v1/traces?tenant=acme",
	} {
		if got, err := tracesURL(in); err != nil || got != want {
			t.Errorf("tracesURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// The warning never shows credentials of the URL or the headers.
func TestWarningHidesCredentials(t *testing.T) {
	url := strings.Replace(deadURL(t), "http://", "http://user:pa55word@", 1) + "/?api_key=s3cr3t-key"
	e, w := newTestExporter(t, url, func(cfg *Config) { cfg.Headers = map[string]string{"Authorization": "Bearer hdr-secret"} })
	emitCalls(e, 1, 0)
	e.Close()
	ws := w.list()
	if len(ws) != 1 {
		t.Fatalf("%d warnings", len(ws))
	}
	for _, s := range []string{"pa55word", "s3cr3t-key", "hdr-secret"} {
		if strings.Contains(ws[0].Message, s) {
			t.Errorf("warning shows %q: %s", s, ws[0].Message)
		}
	}
	t.Log(ws[0].Message)
}
