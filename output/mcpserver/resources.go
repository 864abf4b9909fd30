package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// callURIPrefix + a call's id (path-escaped) is the call's resource.
const callURIPrefix = "toolscope://calls/"

// CallURI is the resource URI of a call.
func CallURI(id string) string { return callURIPrefix + url.PathEscape(id) }

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: callURIPrefix + "{id}",
		Name:        "call",
		Title:       "One tool call as JSON",
		Description: "A call's JSON document (the same as get_call returns and the screen's y copies), by its id from list_calls. " +
			"Subscribe to be told when the call changes.",
		MIMEType: "application/json",
	}, s.readCall)
}

func (s *Server) readCall(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := callID(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	snap := s.snapshot()
	c, err := findCall(snap, id)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	b, err := json.MarshalIndent(boundedCall(snap, c, s.cfg.Now()), "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// maxSubscriptions bounds the URIs watched at once.
const maxSubscriptions = 1000

// subscriptions are the call resources some session listens to, and the
// version of each call last seen; the watcher says when one changes.
type subscriptions struct {
	store    *model.Store
	snapshot func() *model.Snapshot // the server's, bounded in rate
	mu       sync.Mutex
	// uris holds the sessions subscribed to each URI.
	uris map[string]map[*mcp.ServerSession]bool
	// seen is each watched call as last seen (nil: not in the store).
	seen map[string]*model.Call
	// watching holds the sessions whose end is awaited (see subscribe).
	watching map[*mcp.ServerSession]bool
}

func newSubscriptions(store *model.Store, snapshot func() *model.Snapshot) *subscriptions {
	return &subscriptions{store: store, snapshot: snapshot, uris: map[string]map[*mcp.ServerSession]bool{},
		seen: map[string]*model.Call{}, watching: map[*mcp.ServerSession]bool{}}
}

func callID(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, callURIPrefix)
	if !ok {
		return "", false
	}
	id, err := url.PathUnescape(rest)
	return id, err == nil && id != ""
}

func (t *subscriptions) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	id, ok := callID(uri)
	if !ok {
		return mcp.ResourceNotFoundError(uri)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.uris[uri] == nil {
		if len(t.uris) >= maxSubscriptions {
			return fmt.Errorf("%d call resources are watched already, the most toolscope watches at once: unsubscribe from some first", maxSubscriptions)
		}
		t.uris[uri] = map[*mcp.ServerSession]bool{}
		// The call as it is now: a change from here on is told (a call
		// not yet seen is told when it appears).
		t.seen[uri] = lookupCall(t.snapshot(), id)
	}
	t.uris[uri][req.Session] = true
	// A session that goes without unsubscribing (a client that quits) must
	// not keep its URIs watched: forget them when it ends.
	if ss := req.Session; ss != nil && !t.watching[ss] {
		t.watching[ss] = true
		go func() {
			_ = ss.Wait()
			t.forget(ss)
		}()
	}
	return nil
}

func (t *subscriptions) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.drop(req.Params.URI, req.Session)
	return nil
}

func (t *subscriptions) drop(uri string, ss *mcp.ServerSession) {
	if set := t.uris[uri]; set != nil {
		delete(set, ss)
		if len(set) == 0 {
			delete(t.uris, uri)
			delete(t.seen, uri)
		}
	}
}

func (t *subscriptions) forget(ss *mcp.ServerSession) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.watching, ss)
	for uri := range t.uris {
		t.drop(uri, ss)
	}
}

// changed are the watched URIs whose call changed since last seen.
func (t *subscriptions) changed(snap *model.Snapshot) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var uris []string
	for uri, prev := range t.seen {
		id, _ := callID(uri)
		if c := lookupCall(snap, id); c != prev {
			t.seen[uri] = c
			uris = append(uris, uri)
		}
	}
	return uris
}

func (t *subscriptions) any() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.uris) > 0
}

// watch tells subscribers when their call changed: every poll, when the
// store's version moved, it compares each watched call with the one last
// seen. A snapshot's call is immutable and the store copies a call before
// changing it once a snapshot holds it, so a changed call is another
// pointer: the comparison costs nothing per call.
func (t *subscriptions) watch(ctx context.Context, srv *mcp.Server, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var version uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if t.store.Version() == version || !t.any() {
			continue
		}
		// The version of the snapshot read, not the store's: a snapshot up
		// to snapshotEvery old is read again at the next tick.
		snap := t.snapshot()
		version = snap.Version
		for _, uri := range t.changed(snap) {
			_ = srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}
