package cli

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// confirmDeploy runs a go-sdk client over a CommandTransport that calls
// deploy, a tool that asks the user to confirm, and confirms.
func confirmDeploy(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "v1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"token": "yes"}}, nil
		},
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestStdioTapMultiRoundCall: `toolscope tap -- SERVER` in front of a
// go-sdk server whose tool asks for input: the client gets what it gets
// without the tap, and the recording holds one call of two rounds, every
// tool event naming it.
func TestStdioTapMultiRoundCall(t *testing.T) {
	toolscope, server := stdioBins(t)
	direct := confirmDeploy(t, exec.Command(server))
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	through := confirmDeploy(t, exec.Command(toolscope, "tap", "--record", rec, "--", server))
	if direct != "deployed to prod" || through != direct {
		t.Fatalf("through the tap %q, direct %q", through, direct)
	}
	checkTwoRounds(t, rec)

	// The mock serves the recording again: round 2 by its requestState.
	events := filepath.Join(t.TempDir(), "mock-events.jsonl")
	if mocked := confirmDeploy(t, exec.Command(toolscope, "mock", rec, "--stdio", "--record", events)); mocked != direct {
		t.Fatalf("against the mock %q, direct %q", mocked, direct)
	}
	checkTwoRounds(t, events)
}

// checkTwoRounds: a recording holds one call of two rounds.
func checkTwoRounds(t *testing.T, rec string) {
	t.Helper()
	var got []string
	calls := map[string]bool{}
	for _, e := range readRecording(t, rec) {
		switch e.Kind {
		case model.KindToolCall, model.KindToolResult:
			got = append(got, string(e.Kind)+" round "+string(rune('0'+e.Round))+" "+e.ResultType)
			calls[e.Call] = true
		case model.KindWarning:
			t.Errorf("warning %s: %s", e.Code, e.Message)
		}
	}
	want := []string{"tool.call round 0 ", "tool.result round 1 input_required", "tool.call round 2 ", "tool.result round 2 complete"}
	if len(got) != len(want) || len(calls) != 1 || calls[""] {
		t.Fatalf("recorded %q for calls %v, want %q for one call", got, calls, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %q, want %q", i, got[i], want[i])
		}
	}
}
