// Package mcpserver serves what toolscope saw as an MCP server of its own
// (--mcp-listen): tools that list, show and explain the calls of the live
// store, and each call as a resource, over Streamable HTTP (the go-sdk),
// for the coding agent that is debugging an MCP server beside its author.
//
// It reads store snapshots only, never changes the store and never makes
// the observed traffic wait. It listens on loopback unless told otherwise,
// and then only with a bearer token.
package mcpserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// Path is where the endpoint answers.
const Path = "/mcp"

// TokenEnv names the variable holding the bearer token clients must send.
const TokenEnv = "TOOLSCOPE_MCP_TOKEN"

// maxRequestBytes bounds a request's body: the tools take an id, a filter
// and a number.
const maxRequestBytes = 64 << 10

// maxEventStoreBytes bounds what is kept to resume session streams.
const maxEventStoreBytes = 4 << 20

// newProtocol is the first MCP revision without sessions: the go-sdk serves
// it from a stateless handler only.
const newProtocol = "2026-07-28"

// Config is how the server listens and whom it answers.
type Config struct {
	Listen string // host:port; loopback unless AllowRemote
	// AllowRemote lets Listen be another address; Token is then required.
	AllowRemote bool
	// Token, when set, must come as "Authorization: Bearer <Token>" on
	// every request (compared in constant time).
	Token   string
	Version string // toolscope's, for serverInfo
	// Now is the clock for elapsed times (tests); nil is time.Now.
	Now func() time.Time
	// Poll is how often subscribed calls are checked for changes (0: 250 ms).
	Poll time.Duration
}

// Server is the MCP endpoint over one store.
type Server struct {
	cfg     Config
	store   *model.Store
	mcp     *mcp.Server
	handler http.Handler
	subs    *subscriptions
	http    *http.Server
	ln      net.Listener
	stop    context.CancelFunc
	done    chan struct{}

	snapMu sync.Mutex
	snap   *model.Snapshot
	taken  time.Time
}

// snapshotEvery bounds how often the tools take a store snapshot: a client
// asking in a loop must not hold the store's lock for the traffic (each
// snapshot copies a slice of every call, and makes the store copy a call
// before its next change). What a tool says is at most this old.
const snapshotEvery = 100 * time.Millisecond

// snapshot is the store's latest snapshot, taken again once snapshotEvery
// has passed.
func (s *Server) snapshot() *model.Snapshot {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	if now := time.Now(); s.snap == nil || now.Sub(s.taken) >= snapshotEvery {
		s.snap, s.taken = s.store.Snapshot(), now
	}
	return s.snap
}

// CheckListen says why an address may not be listened on: an address
// beyond loopback needs allowRemote and a token.
func CheckListen(addr string, allowRemote bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--mcp-listen %q: want HOST:PORT, e.g. 127.0.0.1:7072", addr)
	}
	if model.IsLoopback(host) {
		return nil
	}
	if !allowRemote {
		return fmt.Errorf("--mcp-listen %s is not loopback: it would serve what toolscope saw to the network; add --mcp-allow-remote (and set %s) to mean it", addr, TokenEnv)
	}
	if token == "" {
		return fmt.Errorf("--mcp-allow-remote needs a bearer token in %s (clients send Authorization: Bearer <token>)", TokenEnv)
	}
	return nil
}

// New makes the server over store; Start listens.
func New(store *model.Store, cfg Config) (*Server, error) {
	if err := CheckListen(cfg.Listen, cfg.AllowRemote, cfg.Token); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	s := &Server{cfg: cfg, store: store, done: make(chan struct{})}
	s.subs = newSubscriptions(store, s.snapshot)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "toolscope", Title: "toolscope: what an MCP server's tool calls did", Version: cfg.Version},
		&mcp.ServerOptions{
			Instructions:       instructions,
			SubscribeHandler:   s.subs.subscribe,
			UnsubscribeHandler: s.subs.unsubscribe,
			Logger:             slog.New(slog.DiscardHandler),
		})
	if err := s.addTools(); err != nil {
		return nil, err
	}
	s.addResources()
	s.handler = s.newHandler()
	return s, nil
}

const instructions = `toolscope watches the tool calls between an agent platform (or any MCP client) and an MCP server, live. ` +
	`Use list_calls to find calls (newest first; filter like "status:error", "flag:rejected", "tool:get_order"), ` +
	`get_call for everything seen of one, explain_call for why it ended as it did and what the server must change, ` +
	`list_warnings for contract warnings and sources for what toolscope watches. Secrets are redacted.`

// newHandler routes each request to the go-sdk's handler for its protocol:
// 2025-11-25 and earlier keep sessions (resource subscriptions over the
// session's stream); 2026-07-28 is stateless. Both keep the go-sdk's
// localhost (DNS rebinding) protection; a cross-origin browser request is
// refused; a token, when set, is required first.
func (s *Server) newHandler() http.Handler {
	get := func(*http.Request) *mcp.Server { return s.mcp }
	// A 2025-11-25 session's streams can be resumed (Last-Event-ID) from a
	// bounded store of what was sent; idle sessions end.
	events := mcp.NewMemoryEventStore(nil)
	events.SetMaxBytes(maxEventStoreBytes)
	stateful := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute, EventStore: events,
		MaxRequestBodyBytes: maxRequestBytes})
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true, MaxRequestBodyBytes: maxRequestBytes})
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= newProtocol {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle(Path, http.NewCrossOriginProtection().Handler(route))
	if s.cfg.Token == "" {
		return mux
	}
	want := sha256.Sum256([]byte(s.cfg.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, scheme := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		// Hashes of equal length, compared in constant time: neither the
		// token nor its length leaks through timing.
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !scheme {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolscope"`)
			http.Error(w, "401 Unauthorized: send Authorization: Bearer <"+TokenEnv+">", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// Handler is the endpoint, for a server the caller runs.
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens on Config.Listen and serves until Shutdown.
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("--mcp-listen: %w", err)
	}
	s.ln = ln
	s.http = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go func() {
		defer close(s.done)
		s.subs.watch(ctx, s.mcp, s.cfg.Poll)
	}()
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Default().Debug("mcp server stopped", "err", err)
		}
	}()
	return nil
}

// Addr is the address listened on (after Start).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the endpoint's URL (after Start).
func (s *Server) URL() string { return "http://" + s.Addr() + Path }

// Shutdown stops listening and ends open streams.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.http == nil {
		return nil
	}
	s.stop()
	<-s.done
	// Session streams (GET) and listens stay open until their client goes:
	// in-flight answers get a moment to finish, then every connection closes.
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		return s.http.Close()
	}
	return nil
}
