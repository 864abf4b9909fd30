package tap

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// ranCall is a tool call the go-sdk server ran: the name, _meta and context
// token it ran with, as the server read them.
type ranCall struct {
	name  string
	meta  map[string]any
	token string
}

// guardedServer is a real go-sdk v1.8.0 server with a harmless get_order
// and a delete_all that must never run through an --enforce tap; it records
// every call it ran and counts the requests that reached it.
type guardedServer struct {
	handler http.Handler
	mu      sync.Mutex
	ran     []ranCall
	hits    hits
}

type orderInput struct {
	OrderID string `json:"orderId,omitempty"`
}

func newGuardedServer() *guardedServer {
	g := &guardedServer{}
	server := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "v1.0.0"}, nil)
	for _, name := range []string{"get_order", "delete_all"} {
		mcp.AddTool(server, &mcp.Tool{Name: name},
			func(_ context.Context, req *mcp.CallToolRequest, _ orderInput) (*mcp.CallToolResult, any, error) {
				rc := ranCall{name: req.Params.Name, meta: req.Params.Meta}
				if req.Extra != nil {
					rc.token = req.Extra.Header.Get(model.ContextHeader)
				}
				g.mu.Lock()
				g.ran = append(g.ran, rc)
				g.mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + req.Params.Name}}}, nil, nil
			})
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	g.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.hits.add()
		sdk.ServeHTTP(w, r)
	})
	return g
}

func (g *guardedServer) calls() []ranCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]ranCall(nil), g.ran...)
}

func (g *guardedServer) ranTool(name string) bool {
	for _, c := range g.calls() {
		if c.name == name {
			return true
		}
	}
	return false
}

// bypassBodies are the five bodies that made a go-sdk server behind an
// --enforce tap run delete_all (issue 17), with the token each carried and
// the JSON-RPC code a strict tap answers.
func bypassBodies(t testing.TB) []struct {
	name, body string
	token      string
	code       int
	id         string
	shownAs    string // the tool the tap shows without --enforce ("" for no call)
} {
	meta := contractMeta("task-1", "call-1", 1)
	valid := mintToken(t, testSecret, "get_order", meta, nil)
	metaJSON, _ := json.Marshal(meta)
	return []struct {
		name, body string
		token      string
		code       int
		id         string
		shownAs    string
	}{
		{name: "Method ping after the real method", code: jsonrpc.CodeInvalidRequest, id: "1",
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all","arguments":{}},"Method":"ping"}`},
		{name: "JSONRPC 1.0", code: jsonrpc.CodeInvalidRequest, id: "1",
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all","arguments":{}},"JSONRPC":"1.0"}`},
		{name: "extra closing brace", code: jsonrpc.CodeInvalidRequest, id: "1", shownAs: "delete_all",
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all","arguments":{}}}}`},
		{name: "name and Name with a token for get_order", token: valid, code: jsonrpc.CodeInvalidParams, id: "1", shownAs: "get_order",
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all","Name":"get_order","arguments":{},"_meta":` + string(metaJSON) + `}}`},
		{name: "byte-order mark", code: jsonrpc.CodeInvalidRequest, id: "1", shownAs: "delete_all",
			body: "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all","arguments":{}}}`},
	}
}

// TestEnforceCannotBeTalkedPast sends each bypass through an --enforce tap
// to a real go-sdk server: the tap answers 400 with the code and id, the
// server never sees the request and delete_all never runs.
func TestEnforceCannotBeTalkedPast(t *testing.T) {
	for _, tc := range bypassBodies(t) {
		t.Run(tc.name, func(t *testing.T) {
			g := newGuardedServer()
			upstream := httptest.NewServer(g.handler)
			t.Cleanup(upstream.Close)
			h := startTap(t, Config{Upstream: upstream.URL, Enforce: true, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
			headers := map[string]string{}
			if tc.token != "" {
				headers[model.ContextHeader] = tc.token
			}
			status, _, resp := post(t, h.url, []byte(tc.body), headers)
			if g.ranTool("delete_all") || g.hits.count() != 0 {
				t.Fatalf("the server ran %v (%d requests reached it); tap answered %d %s", g.calls(), g.hits.count(), status, resp)
			}
			var rpc rpcErrorBody
			if status != http.StatusBadRequest || json.Unmarshal(resp, &rpc) != nil || rpc.Error.Code != tc.code || string(rpc.ID) != tc.id {
				t.Fatalf("answer %d %s, want 400 with code %d and id %s", status, resp, tc.code, tc.id)
			}
			h.waitFor("ambiguous_json", func(s *model.Snapshot) bool { return hasWarning(s, "ambiguous_json") })
		})
	}
}

// TestAmbiguousBodiesFlaggedWithoutEnforce: without --enforce the same
// bodies reach the server, and the tap says they were ambiguous.
func TestAmbiguousBodiesFlaggedWithoutEnforce(t *testing.T) {
	for _, tc := range bypassBodies(t) {
		t.Run(tc.name, func(t *testing.T) {
			g := newGuardedServer()
			upstream := httptest.NewServer(g.handler)
			t.Cleanup(upstream.Close)
			h := startTap(t, Config{Upstream: upstream.URL, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
			post(t, h.url, []byte(tc.body), map[string]string{model.ContextHeader: tc.token})
			if g.hits.count() != 1 {
				t.Fatalf("upstream hits %d, want the body forwarded", g.hits.count())
			}
			s := h.waitFor("ambiguous_json", func(s *model.Snapshot) bool { return hasWarning(s, "ambiguous_json") })
			for _, e := range allEvents(s) {
				if e.Code != "ambiguous_json" {
					continue
				}
				if !strings.Contains(e.Message, "servers") || e.Tool != tc.shownAs {
					t.Errorf("warning on tool %q (want %q): %s", e.Tool, tc.shownAs, e.Message)
				}
			}
		})
	}
}

// TestEnforceRefusesWhatItCannotRead: a body the tap does not decode (a
// Content-Encoding), two context tokens, and bodies that are not JSON-RPC
// are refused under --enforce with 400, the code and, when it can be read,
// the request id; nothing reaches the server.
func TestEnforceRefusesWhatItCannotRead(t *testing.T) {
	meta := contractMeta("task-1", "call-1", 1)
	valid := mintToken(t, testSecret, "get_order", meta, nil)
	call := string(callBody(t, 41, "get_order", map[string]any{}, meta))
	cases := []struct {
		name    string
		method  string // POST when empty
		body    string
		headers [][2]string
		code    int
		id      string
	}{
		{name: "PUT with a call", method: http.MethodPut, body: call, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "lower-case post", method: "post", body: call, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "gzip", body: call, headers: [][2]string{{"Content-Encoding", "gzip"}}, code: jsonrpc.CodeInvalidRequest, id: "41"},
		{name: "identity then br", body: call, headers: [][2]string{{"Content-Encoding", "identity, br"}}, code: jsonrpc.CodeInvalidRequest, id: "41"},
		{name: "utf-16 charset", body: call, headers: [][2]string{{"Content-Type", "application/json; charset=utf-16"}}, code: jsonrpc.CodeInvalidRequest, id: "41"},
		{name: "two tokens", body: call, headers: [][2]string{{model.ContextHeader, valid}, {model.ContextHeader, "other"}}, code: jsonrpc.CodeInvalidRequest, id: "41"},
		{name: "not JSON", body: `{"jsonrpc":"2.0","id":41,`, code: jsonrpc.CodeParseError, id: "null"},
		{name: "method with a result", body: `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"delete_all"},"result":{}}`, code: jsonrpc.CodeInvalidRequest, id: "41"},
		{name: "no body", body: "", code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "empty batch", body: `[]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGuardedServer()
			upstream := httptest.NewServer(g.handler)
			t.Cleanup(upstream.Close)
			h := startTap(t, Config{Upstream: upstream.URL, Enforce: true, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			req, _ := http.NewRequest(method, h.url, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for _, kv := range tc.headers {
				if kv[0] == "Content-Type" {
					req.Header.Del(kv[0])
				}
				req.Header.Add(kv[0], kv[1])
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var rpc rpcErrorBody
			if err := json.NewDecoder(res.Body).Decode(&rpc); err != nil || res.StatusCode != http.StatusBadRequest || rpc.Error.Code != tc.code || string(rpc.ID) != tc.id {
				t.Fatalf("answer %d %+v (%v), want 400 code %d id %s", res.StatusCode, rpc, err, tc.code, tc.id)
			}
			if g.hits.count() != 0 {
				t.Fatalf("%d requests reached the server", g.hits.count())
			}
		})
	}
}

// TestEnforcePassesARealSession: a real go-sdk client's own traffic
// (initialize, the initialized notification, tools/list, the GET stream,
// DELETE) is read exactly and passes an --enforce tap; only its tools/call,
// which carries no token, is answered 401.
func TestEnforcePassesARealSession(t *testing.T) {
	upstream := newSDKServer(t, nil)
	h := startTap(t, Config{Upstream: upstream.URL, Enforce: true, Secrets: [][]byte{testSecret}, InstanceID: testInstanceID})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect through --enforce: %v", err)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools/list through --enforce = %v, %v", tools, err)
	}
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"steps": 1}}); err == nil {
		t.Fatal("a tools/call without a token ran through --enforce")
	}
	session.Close()
	h.shutdown()
	if s := h.store.Snapshot(); hasWarning(s, "ambiguous_json") || hasWarning(s, "malformed_request") {
		t.Fatalf("the SDK's own traffic was refused:\n%s", dump(s))
	}
}
