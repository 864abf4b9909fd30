package tap

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
	"toolscope/output"
)

type deployInput struct {
	Env string `json:"env"`
}

// addDeployTool gives server a tool that asks the client to confirm (MCP
// 2026-07-28 input_required, an elicitation) before it deploys, as an MCP
// server author writes it with the go-sdk.
func addDeployTool(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: "deploy", Description: "deploys, once the user confirms"},
		func(_ context.Context, req *mcp.CallToolRequest, in deployInput) (*mcp.CallToolResult, any, error) {
			resp, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Deploy to " + in.Env + "?",
						RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"note": map[string]any{"type": "string"}}}}},
					RequestState: "deploy-" + in.Env,
				}, nil, nil
			}
			if req.Params.RequestState != "deploy-"+in.Env || resp.Action != "accept" {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not deployed"}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed to " + in.Env}}}, nil, nil
		})
}

// confirmingClient is a go-sdk client whose user confirms what it is asked,
// with an answer holding a secret-looking value (redacted as arguments are).
func confirmingClient(asked *atomic.Int32) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "v1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"token": "sk-live-4f9a8b7c6d5e4f3a2b1c"}}, nil
		},
	})
}

func deployThrough(t *testing.T, transport mcp.Transport) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var asked atomic.Int32
	session, err := confirmingClient(&asked).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if asked.Load() != 1 {
		t.Fatalf("the client was asked %d times, want once", asked.Load())
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// checkRounds: the two rounds are one call of two rounds, its rounds say
// what the server asked and what the client answered (redacted).
func checkRounds(t *testing.T, s *model.Snapshot) {
	t.Helper()
	var calls []*model.Call
	for _, c := range s.Calls {
		if c.Tool == "deploy" {
			calls = append(calls, c)
		}
	}
	if len(calls) != 1 {
		t.Fatalf("%d deploy calls, want the two rounds as one\n%s", len(calls), dump(s))
	}
	c := calls[0]
	if c.Status != model.StatusOK || c.Rounds() != 2 || len(c.Attempts) != 1 || c.Flags&model.FlagRetried != 0 {
		t.Fatalf("status %s, rounds %d, attempts %d\n%s", c.Status, c.Rounds(), len(c.Attempts), dump(s))
	}
	for _, w := range c.Warnings {
		switch model.WarningCode(w.Code) {
		case model.WarnResultMalformed, model.WarnInputRequiredEmpty, model.WarnInputCapabilityUndeclared,
			model.WarnInputResponsesMismatch, model.WarnRequestStateNotReturned:
			t.Errorf("a false %s: %s", w.Code, w.Message) // a correct peer breaks none of the rounds' rules
		}
	}
	a := c.Attempts[0]
	r1, r2 := a.Rounds[0], a.Rounds[1]
	if len(r1.Asked) != 1 || r1.Asked[0].Method != model.InputElicit || r1.Asked[0].Message != "Deploy to prod?" ||
		!strings.Contains(string(r1.Asked[0].RequestedSchema), `"note"`) {
		t.Errorf("round 1 asked %+v", r1.Asked)
	}
	if !strings.Contains(string(r2.Answers), `"accept"`) || strings.Contains(string(r2.Answers), "sk-live-4f9a8b7c6d5e4f3a2b1c") {
		t.Errorf("round 2 answered %s: want the answer, its secret redacted", r2.Answers)
	}
	if r1.RequestID == r2.RequestID || r1.RequestID == "" || r2.Ended.IsZero() || a.Result.TextChars != len("deployed to prod") {
		t.Errorf("rounds %+v / %+v, result %+v", r1, r2, a.Result)
	}
	server, waiting := c.RoundTimes(time.Now())
	if server <= 0 || waiting <= 0 || server+waiting > c.Elapsed(time.Now())+time.Millisecond {
		t.Errorf("server %v + waiting %v against %v elapsed", server, waiting, c.Elapsed(time.Now()))
	}
}

// checkLines: every tool event of the call says the call's id, and its
// round once the call has more than one.
func checkLines(t *testing.T, lines []byte, id string) {
	t.Helper()
	rounds := map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		ev, err := output.DecodeLine(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if ev.Tool != "deploy" || !strings.HasPrefix(string(ev.Kind), "tool.") {
			continue
		}
		if ev.Call != id {
			t.Errorf("%s: call %q, want %q", line, ev.Call, id)
		}
		rounds[string(ev.Kind)+"#"+string(rune('0'+ev.Round))] += 1
	}
	for _, k := range []string{"tool.call#0", "tool.result#1", "tool.call#2", "tool.result#2"} {
		if rounds[k] != 1 {
			t.Errorf("%v: want one %s", rounds, k)
		}
	}
}

func TestMultiRoundCallThroughTap(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		// 2026-07-28 has no sessions: its calls come on their own.
		{"stateless-sse", &mcp.StreamableHTTPOptions{Stateless: true}},
		{"stateless-json", &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "v1.0.0"}, nil)
			addDeployTool(server)
			upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, tc.opts))
			t.Cleanup(upstream.Close)
			h := startTap(t, Config{Upstream: upstream.URL, Name: "tap:orders"})
			var lines bytes.Buffer // written by w's goroutine, read once w is closed
			w := output.NewWriter(&lines, output.WriterConfig{Name: "json"})
			h.hub.Add(w) // before any traffic

			direct := deployThrough(t, &mcp.StreamableClientTransport{Endpoint: upstream.URL, MaxRetries: -1})
			through := deployThrough(t, &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1})
			if direct != "deployed to prod" || through != direct {
				t.Fatalf("direct %q, through the tap %q", direct, through)
			}
			h.waitCall("deploy")
			h.shutdown()
			w.Close()
			s := h.store.Snapshot()
			checkRounds(t, s)
			checkLines(t, lines.Bytes(), s.Calls[len(s.Calls)-1].ID)
		})
	}
}

// TestMultiRoundCallThroughStdioTap: the same through the stdio tap, with
// a go-sdk stdio server as its child.
func TestMultiRoundCallThroughStdioTap(t *testing.T) {
	server := stdioServer(t)
	direct := deployThrough(t, &mcp.CommandTransport{Command: exec.Command(server)})
	r := startStdio(t, context.Background(), Config{Name: "stdio:deployer"}, server)
	through := deployThrough(t, &mcp.IOTransport{Reader: r.stdout, Writer: r.stdin})
	if direct != "deployed to prod" || through != direct {
		t.Fatalf("direct %q, through the tap %q", direct, through)
	}
	r.stdin.Close()
	r.wait(t)
	s := r.log.store.Snapshot()
	checkRounds(t, s)
	for _, c := range s.Calls {
		if c.Tool != "deploy" {
			continue
		}
		var lines bytes.Buffer // the events as the store applied them, as lines
		for _, ev := range c.Timeline() {
			lines.Write(output.EncodeLine(&ev)) // a line, newline and all
		}
		checkLines(t, lines.Bytes(), c.ID)
	}
}

// TestUndeclaredElicitationFromSDK: a go-sdk client that cannot elicit
// declares no elicitation in its request's clientCapabilities; the go-sdk
// server asks it to confirm all the same, and the call says so.
func TestUndeclaredElicitationFromSDK(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "v1.0.0"}, nil)
	addDeployTool(server)
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(upstream.Close)
	h := startTap(t, Config{Upstream: upstream.URL, Name: "tap:orders"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}); err == nil {
		t.Fatal("a client that cannot elicit answered the elicitation")
	}
	s := h.waitFor("the undeclared elicitation", func(s *model.Snapshot) bool {
		for _, c := range s.Calls {
			for _, w := range c.Warnings {
				if c.Tool == "deploy" && w.Code == string(model.WarnInputCapabilityUndeclared) {
					return strings.Contains(w.Message, `"confirm" needs elicitation`)
				}
			}
		}
		return false
	})
	h.shutdown()
	for _, c := range s.Calls {
		if c.Tool == "deploy" && c.Status != model.StatusNeedsInput {
			t.Errorf("status %s, want %s: the client never answered\n%s", c.Status, model.StatusNeedsInput, dump(s))
		}
	}
}
