package demo

import (
	"context"
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/decoder/jsonrpc"
)

// idempotencyStore remembers each call's result by its idempotency key, as
// the contract asks of a server that is not safe to re-run: a retry gets the
// stored result back, marked _meta["agentarea/replayed"]: true.
type idempotencyStore struct {
	mu      sync.Mutex
	results map[string]*mcp.CallToolResult
}

func newIdempotencyStore() *idempotencyStore {
	return &idempotencyStore{results: make(map[string]*mcp.CallToolResult)}
}

func (s *idempotencyStore) get(key string) (*mcp.CallToolResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.results[key]
	return r, ok
}

// put stores a copy: the SDK goes on writing to the result it was handed
// (its resultType) while a retry may already be reading the stored one.
func (s *idempotencyStore) put(key string, r *mcp.CallToolResult) {
	c := *r
	c.Meta = maps.Clone(r.Meta)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[key] = &c
}

// replayedCopy is the stored result as a duplicate gets it.
func replayedCopy(r *mcp.CallToolResult) *mcp.CallToolResult {
	c := *r
	c.Meta = maps.Clone(r.Meta)
	if c.Meta == nil {
		c.Meta = mcp.Meta{}
	}
	c.Meta[jsonrpc.MetaReplayed] = true
	return &c
}

// dropPlan is the demo's fault injection: the first run of a listed tool for
// each idempotency key stores its result, then loses its connection before
// the result is written.
type dropPlan struct {
	mu      sync.Mutex
	tools   map[string]bool
	dropped map[string]bool
}

func newDropPlan(tools ...string) *dropPlan {
	p := &dropPlan{tools: make(map[string]bool), dropped: make(map[string]bool)}
	for _, t := range tools {
		p.tools[t] = true
	}
	return p
}

// take says whether this run must drop its connection (once per key).
func (p *dropPlan) take(tool, key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tools[tool] || p.dropped[key] {
		return false
	}
	p.dropped[key] = true
	return true
}

// idempotent wraps a tool handler with the idempotency store, keyed by the
// verified idempotency_key claim.
func (s *demoServer) idempotent(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		key, _ := claimsFrom(ctx)["idempotency_key"].(string)
		if key == "" {
			return h(ctx, req)
		}
		if stored, ok := s.idem.get(key); ok {
			return replayedCopy(stored), nil
		}
		res, err := h(ctx, req)
		if err != nil || res == nil {
			return res, err
		}
		s.idem.put(key, res) // before the drop: the retry must find it
		if s.drops.take(req.Params.Name, key) {
			dropConnection(ctx)
		}
		return res, nil
	}
}
