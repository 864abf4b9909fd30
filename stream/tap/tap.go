package tap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// Tap is one tap proxy. It is an http.Handler (ServeHTTP) and can run its own
// loopback server (Start, Addr, Shutdown).
type Tap struct {
	cfg      Config
	sink     model.Sink
	upstream *url.URL
	proxy    *httputil.ReverseProxy
	calls    *registry
	unread   unreadCalls          // tools/call exchanges not yet read (rounds.go)
	declared declaredCapabilities // what each session's initialize declared (rounds.go)
	judge    *decoder.Judge       // judges each request; remembers what earlier calls carried
	cancels  pendingCancels
	budget   *byteBudget // request-body bytes held (see reqbody.go)

	seq      atomic.Uint64
	inflight sync.WaitGroup // exchanges being run
	runners  *runners
	closing  atomic.Bool
	closedAt atomic.Int64 // when Shutdown began (unix ns), once closing

	mu    sync.Mutex
	srv   *http.Server
	ln    net.Listener
	fresh newConns // connections with no request yet
}

// New makes a tap. It validates cfg; nothing listens until Start.
func New(cfg Config, sink model.Sink) (*Tap, error) {
	cfg, u, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if sink == nil {
		return nil, errors.New("tap: a sink is required")
	}
	t := &Tap{cfg: cfg, sink: sink, upstream: u, calls: newRegistry(), runners: newRunners(),
		budget: &byteBudget{limit: cfg.MaxBufferedBytes}, judge: newJudge(cfg)}
	t.proxy = t.newProxy()
	return t, nil
}

type exchangeKey struct{}

func exchangeFrom(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	return ex
}

// ServeHTTP forwards one request to the upstream and hands what passed to
// the observer without waiting for it. A request's way is five steps:
//  1. the head is taken and checked (rawhead.go, host.go), and the
//     request becomes an exchange (exchange.go) unless observation is full
//     (admit.go): then it is forwarded unobserved, and counted;
//  2. the body is read once (reqbody.go): without --enforce it streams to
//     the upstream as it arrives while a copy (up to MaxParseBytes) is kept
//     aside; with --enforce it is read first;
//  3. with --enforce the request is judged once (judge.go), before it is
//     forwarded, and the tap may answer it itself;
//  4. it is forwarded (proxy.go): the response streams through while a
//     copy goes to the side work (sidePipe);
//  5. the exchange is handed to its side work (sidework.go), which judges
//     the request (without --enforce), reads the response copy and emits.
func (t *Tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// 1. The head.
	raw := rawHeaderOf(r) // taken first: one head per request, whatever the answer
	if t.refuseRebinding(w, r) {
		return
	}
	hasBody := r.Body != nil && r.Body != http.NoBody
	observed := t.runners.admit(t)
	if !observed && !t.cfg.Enforce {
		// No exchange in its context: nothing is copied. The client's body
		// is left for net/http to close, as below.
		out := r.WithContext(r.Context())
		if hasBody {
			out.Body = io.NopCloser(r.Body)
		}
		t.forward(w, out)
		return
	}
	ex := t.newExchange(r, raw)
	// The proxy gets its own request: the server's keeps the client's body,
	// so net/http still knows how that body ended.
	out := r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex))

	// 2. The body, read once.
	if hasBody && !t.cfg.Enforce {
		out.Body = t.forwardedBody(ex, r)
		if ex.tee != nil {
			defer ex.tee.end(false, "request body not read to its end") // a no-op once whole
		}
	}
	if hasBody && t.cfg.Enforce {
		body, refused := t.bufferRequest(w, ex, r)
		if refused != nil {
			ex.req = &parsedRequest{warnings: []model.Warning{{Code: refused.warning, Message: refused.Reason}}}
			ex.enforced(observed, &refused.Answer)
			return
		}
		out.Body = body
	}

	// 3. With --enforce, judged once, before it is forwarded: the tap
	// answers a request the judgment refuses as a server following the
	// contract would, then readies the exchange's events.
	if t.cfg.Enforce {
		judged := t.judgeRequest(ex)
		refused := judged.Answer
		if refused != nil {
			jsonrpc.WriteResponse(w, refused.Status, refused.Body)
		}
		ex.req = t.sortRequest(ex, judged, true)
		if refused != nil {
			ex.enforced(observed, refused)
			return
		}
		if !observed {
			// Judged and let through, but not observed: forwarded as the
			// gate read it, the exchange left out of the proxy's context.
			defer ex.releaseBody()
			unobserved := r.WithContext(r.Context())
			unobserved.Body = out.Body
			t.forward(w, unobserved)
			return
		}
	}

	// 4. Forwarded, and 5. handed to its side work.
	if ex.bodyWhole && len(ex.body) <= maxCancelBody && bytes.Contains(ex.body, cancelMethod) {
		// Counted before it is forwarded, so before the server can react.
		ex.pendingCancel = true
		t.cancels.add()
	}
	t.inflight.Add(1)
	ex.scheduleSideWork()
	defer ex.handlerDone()
	t.forward(w, out)
	ex.served = true
}

// forward is the proxy itself.
func (t *Tap) forward(w http.ResponseWriter, out *http.Request) {
	// The transport may still read the request body (if only to see its
	// end) after the upstream has answered. Without full duplex, net/http
	// consumes and closes an unread request body when the response header
	// is written: that last read then fails, and the transport drops the
	// upstream connection with the response still on it.
	http.NewResponseController(w).EnableFullDuplex()
	// Let the upstream's headers alone decide Date and Content-Type: without
	// these nil entries net/http would add its own.
	h := w.Header()
	h["Date"] = nil
	h["Content-Type"] = nil
	t.proxy.ServeHTTP(w, out)
}

// Start listens on cfg.Listen and serves in the background. An address that
// is not loopback gets a listen_not_loopback warning: the tap forwards
// credentials and shows context tokens.
func (t *Tap) Start() error {
	ln, err := net.Listen("tcp", t.cfg.Listen)
	if err != nil {
		return fmt.Errorf("tap %s: listen %s: %w", t.cfg.Name, t.cfg.Listen, err)
	}
	if t.forwardsToItself(ln) {
		ln.Close()
		return fmt.Errorf("tap %s: --upstream %s is the tap's own address %s: it would forward every request to itself", t.cfg.Name, model.RedactURL(t.upstream), t.cfg.Listen)
	}
	ln = headListener{ln} // header names as they arrived, for SOAT keys
	srv := &http.Server{Handler: t, ReadHeaderTimeout: 30 * time.Second, ConnState: t.fresh.track, ConnContext: withHeadConn,
		ErrorLog: newServerLog(t)}
	t.mu.Lock()
	t.srv, t.ln = srv, ln
	t.mu.Unlock()
	if !model.IsLoopback(t.cfg.Listen) {
		t.emit(model.Event{Kind: model.KindWarning, Code: string(model.WarnListenNotLoopback),
			Message: fmt.Sprintf("tap %s listens on %s, reachable from other machines: credentials and context tokens pass through it", t.cfg.Name, ln.Addr())})
	}
	if !t.cfg.RewriteHost && !model.IsLoopback(t.upstream.Host) && net.ParseIP(strings.Trim(t.upstream.Hostname(), "[]")) == nil {
		t.emit(model.Event{Kind: model.KindWarning, Code: string(model.WarnUpstreamHostKept),
			Message: fmt.Sprintf("tap %s sends the client's Host to %s; if that server is reached by name (virtual hosting, a CDN), add --rewrite-host", t.cfg.Name, t.upstream.Hostname())})
	}
	t.emit(model.Event{Kind: model.KindSourceStatus, State: model.StateConnected,
		Detail: fmt.Sprintf("listening on %s, forwarding to %s", ln.Addr(), model.RedactURL(t.upstream))})
	go t.watchUpstream(ln.Addr().String()) // reach.go: a dead upstream is said now, not at the first call
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.emit(model.Event{Kind: model.KindSourceStatus, State: model.StateFailed, Detail: err.Error()})
		}
	}()
	return nil
}

// Addr is the address Start listens on ("127.0.0.1:port"), or "" before Start.
func (t *Tap) Addr() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ln == nil {
		return ""
	}
	return t.ln.Addr().String()
}

// Shutdown stops accepting, closes connections that have sent no request
// (after newConnGrace), waits for exchanges in flight until ctx ends, then
// cuts the rest (their calls show tool.cancelled), and returns once
// every event has been emitted.
func (t *Tap) Shutdown(ctx context.Context) error {
	t.closedAt.Store(time.Now().UnixNano())
	t.closing.Store(true)
	t.mu.Lock()
	srv, ln := t.srv, t.ln
	t.mu.Unlock()
	var err error
	if srv != nil {
		done := make(chan struct{})
		go t.fresh.closeSilentUntil(done)
		err = srv.Shutdown(ctx)
		close(done)
		if err != nil {
			srv.Close()
		}
		// Shutdown closes only the listeners Serve has taken up: if its
		// goroutine has not run yet, the socket would still accept
		// connections after the tap said it stopped.
		_ = ln.Close()
	}
	t.runners.stop() // idle runners end; the lost are said now
	t.inflight.Wait()
	t.calls.stopTimers()
	if srv != nil {
		t.emit(model.Event{Kind: model.KindSourceStatus, State: model.StateEnded, Detail: "tap stopped"})
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		err = nil // cut on purpose: the calls it cut were reported
	}
	return err
}

// emit stamps an event with the tap's identity and hands it to the sink.
func (t *Tap) emit(ev model.Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	ev.Source = model.SourceTap
	ev.SourceName = t.cfg.Name
	t.sink.Emit(ev)
}

// redactErr is err's text with any URL in it (a transport error names the
// upstream URL) redacted.
func redactErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			c := *ue
			c.URL = model.RedactURL(u)
			return c.Error()
		}
	}
	return err.Error()
}
