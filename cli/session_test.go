package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A recorded session for export and mock: a real go-sdk server, called by
// a real go-sdk client through the real tap binary with --record.

type countArgs struct {
	Steps int `json:"steps"`
}

type echoArgs struct {
	Text string `json:"text"`
}

// sessionServer is the recorded server: count reports progress 30 ms
// apart, echo answers, fail returns isError.
func sessionServer(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "recorded", Version: "v1.2.3"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "count", Description: "counts, reporting progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, in countArgs) (*mcp.CallToolResult, map[string]int, error) {
			for i := 1; i <= in.Steps; i++ {
				time.Sleep(30 * time.Millisecond)
				if tok := req.Params.GetProgressToken(); tok != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i)})
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("counted to %d", in.Steps)}}}, map[string]int{"counted": in.Steps}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "says it back"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "always fails"},
		func(context.Context, *mcp.CallToolRequest, echoArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("it failed on purpose")
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv
}

// sdkSaw is what a go-sdk client saw of the session, as comparable text:
// the tools listed, each call's result and the progress it got.
func sdkSaw(t *testing.T, endpoint string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var progress []string
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "v1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, fmt.Sprintf("%v/%v %s", req.Params.Progress, req.Params.Total, req.Params.Message))
			mu.Unlock()
		},
	})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", endpoint, err)
	}
	defer session.Close()
	var saw []any
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	saw = append(saw, tools.Tools)
	count := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"steps": 3}}
	count.SetProgressToken("p-count")
	for _, p := range []*mcp.CallToolParams{count,
		{Name: "echo", Arguments: map[string]any{"text": "one"}},
		{Name: "echo", Arguments: map[string]any{"text": "two"}},
		{Name: "fail", Arguments: map[string]any{"text": "x"}}} {
		res, err := session.CallTool(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		saw = append(saw, res)
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(progress)
		mu.Unlock()
		if n >= 3 {
			break
		}
	}
	mu.Lock()
	saw = append(saw, progress)
	mu.Unlock()
	b, _ := json.MarshalIndent(saw, "", " ")
	return string(b)
}

// recordSession runs the session through `toolscope tap --record` (the
// binary) and returns the recording and what the client saw.
func recordSession(t *testing.T, saw func(t *testing.T, endpoint string) string) (rec, sawText string) {
	t.Helper()
	upstream := sessionServer(t)
	rec = filepath.Join(t.TempDir(), "session.jsonl")
	cmd, _, tapAddr := startToolscope(t, "tap", "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--output", "json",
		"--record", rec, "--metrics-listen", "127.0.0.1:0")
	sawText = saw(t, "http://"+tapAddr)
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tap: %v", err)
	}
	return rec, sawText
}
