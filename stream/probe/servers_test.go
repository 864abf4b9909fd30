package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// laxness is how a test server departs from the contract.
type laxness struct {
	acceptAlgNone bool // runs a call whose token has alg none
	ignoreAud     bool // does not compare aud with its instance id
	status500     bool // answers 500 where the contract says 401
	noID          bool // leaves the request id out of its error answers
	runOnMismatch bool // runs the tool when _meta does not match the claims
	noIdempotency bool // runs the tool again for a known idempotency key
}

// contractServer is an MCP server (the official Go SDK, stateless) with a
// guard that verifies every tools/call's credential and context token with
// toolscope's decoder, as the contract says, except where lax says not.
// Its one tool counts its runs per probe case.
type contractServer struct {
	lax        laxness
	secret     []byte
	instanceID string
	credential string

	mu    sync.Mutex
	runs  map[string]int // case id (from the tool_call_id) -> runs
	total int
	idem  map[string]*mcp.CallToolResult
	http  *httptest.Server
}

func startContractServer(t *testing.T, lax laxness) *contractServer {
	t.Helper()
	s := &contractServer{lax: lax, secret: []byte("probe-test-secret-0123456789abcdef-xyz"),
		instanceID: uuid.NewString(), credential: "cred-" + randomHex(8),
		runs: map[string]int{}, idem: map[string]*mcp.CallToolResult{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "probe-test", Version: "1.0.0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", Description: "echo", InputSchema: map[string]any{"type": "object"}}, s.echo)
	srv.AddTool(&mcp.Tool{Name: "zz_second", Description: "never called", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			t.Error("the probe called a tool other than the first")
			return &mcp.CallToolResult{}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	s.http = httptest.NewServer(s.guard(h))
	t.Cleanup(s.http.Close)
	return s
}

func (s *contractServer) URL() string { return s.http.URL + "/mcp" }

func (s *contractServer) config() Config {
	return Config{URL: s.URL(), InstanceID: s.instanceID, Secret: s.secret, Timeout: 10 * time.Second,
		Credential: Credential{Name: "Authorization", Value: "Bearer " + s.credential}}
}

// echo runs once per call: it counts the run, sends progress, and answers
// with the run number (so a second run differs from the first), unless the
// idempotency key is known.
func (s *contractServer) echo(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	meta := req.Params.Meta
	callID, _ := meta[jsonrpc.MetaToolCallID].(string)
	key, _ := meta[jsonrpc.MetaIdempotencyKey].(string)
	s.mu.Lock()
	if stored, ok := s.idem[key]; ok && key != "" && !s.lax.noIdempotency {
		s.mu.Unlock()
		c := *stored
		c.Meta = mcp.Meta{jsonrpc.MetaReplayed: true}
		return &c, nil
	}
	parts := strings.Split(callID, ".")
	if len(parts) == 3 {
		s.runs[parts[1]]++
	} else {
		s.runs["?"+callID]++
	}
	s.total++
	n := s.total
	s.mu.Unlock()
	if tok := req.Params.GetProgressToken(); tok != nil {
		for i := 1; i <= 3; i++ {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3})
		}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("run %d", n)}}}
	s.mu.Lock()
	s.idem[key] = res
	s.mu.Unlock()
	return res, nil
}

// ranCases is a copy of the run counts by case.
func (s *contractServer) ranCases() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.runs {
		out[k] = v
	}
	return out
}

// guard checks what the contract has a server check before the SDK sees
// the request: the static credential, then the judgment of a tools/call (a
// batch holding it, its context token), with toolscope's one Judge.
func (s *contractServer) guard(next http.Handler) http.Handler {
	instance := s.instanceID
	if s.lax.ignoreAud {
		instance = ""
	}
	judge := &decoder.Judge{Secrets: [][]byte{s.secret}, InstanceID: instance}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		judged := judge.Request(decoder.Request{Method: r.Method, Header: r.Header, Body: body, Whole: true, Now: time.Now()})
		read := judged.Body
		if read.Err != nil || len(read.Messages) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if !read.Batch && r.Header.Get("Authorization") != "Bearer "+s.credential {
			s.reject(w, http.StatusUnauthorized, read.Messages[0].ID, jsonrpc.CodeUnauthorized, "missing credential")
			return
		}
		if len(judged.Calls) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		call := judged.Calls[0]
		c := call.Context
		if c.Verdict == model.VerdictValid || s.excused(c) {
			next.ServeHTTP(w, r)
			return
		}
		status, code := c.HTTPStatus, c.RPCCode
		if status == 0 {
			status, code = http.StatusUnauthorized, jsonrpc.CodeUnauthorized
		}
		s.reject(w, status, call.Message.ID, code, c.Reason)
	})
}

// excused says whether a lax server lets a failed verification through.
func (s *contractServer) excused(c model.Context) bool {
	if s.lax.acceptAlgNone && c.Header["alg"] == "none" {
		return true
	}
	return s.lax.runOnMismatch && c.RPCCode == jsonrpc.CodeForbidden && strings.HasPrefix(c.Reason, "token does not match the call")
}

func (s *contractServer) reject(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	if s.lax.status500 && status == http.StatusUnauthorized {
		status = http.StatusInternalServerError
	}
	if s.lax.noID {
		id = nil
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.ErrorResponse(id, code, msg))
}
