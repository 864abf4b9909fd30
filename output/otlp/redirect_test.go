package otlp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRedirectFollowsTheFeedsRule: the export follows a redirect only to
// the same scheme, host and port (model.RedirectRule, the feed's): a
// collector that redirects elsewhere gets no spans and no headers there,
// and the failure is said once.
func TestRedirectFollowsTheFeedsRule(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the export's credential reached another origin: %q", r.Header.Get("Authorization"))
		}
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Another port of the same host: another origin.
		http.Redirect(w, r, other.URL+"/v1/traces", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	e, w := newTestExporter(t, redirector.URL, func(cfg *Config) { cfg.Headers = map[string]string{"Authorization": "Bearer hdr-secret"} })
	emitCalls(e, 3, 0)
	e.Close()
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect to another origin was followed %d times", n)
	}
	ws := w.list()
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "not followed") {
		t.Fatalf("warnings %v, want one saying the redirect was not followed", ws)
	}
	if strings.Contains(ws[0].Message, "hdr-secret") {
		t.Errorf("the warning shows the credential: %s", ws[0].Message)
	}

	// A redirect within the same origin is followed.
	within := http.NewServeMux()
	within.HandleFunc("/old/v1/traces", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v1/traces", http.StatusTemporaryRedirect)
	})
	c := newCollector(t)
	within.Handle("/v1/traces", c.Config.Handler)
	srv := httptest.NewServer(within)
	defer srv.Close()
	e2, w2 := newTestExporter(t, srv.URL+"/old", nil)
	emitCalls(e2, 2, 0)
	e2.Close()
	if len(w2.list()) != 0 || len(c.all()) == 0 {
		t.Errorf("a redirect within the same origin: warnings %v, %d spans", w2.list(), len(c.all()))
	}
}
