package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"toolscope/model/modeltest"
)

// runNode runs node with args in modeltest.NodeDir (the TypeScript SDK
// client, the MCP conformance suite) and returns its stdout.
func runNode(t *testing.T, timeout time.Duration, args ...string) (string, error) {
	t.Helper()
	node := modeltest.NeedNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = modeltest.NodeDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("node %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// tsResult is one tool call as mcpserver-client.mjs prints it.
type tsResult struct {
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
}

// TestTypeScriptClient: the TypeScript SDK's client (which checks each
// result's structured content against the tool's output schema) lists
// and calls every tool and reads a call's resource.
func TestTypeScriptClient(t *testing.T) {
	f := newFixture(t, Config{})
	f.traffic()
	stdout, err := runNode(t, 60*time.Second, "mcpserver-client.mjs", f.mcp.URL())
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		ProtocolVersion string `json:"protocolVersion"`
		Tools           []struct {
			Name            string `json:"name"`
			HasInputSchema  bool   `json:"hasInputSchema"`
			HasOutputSchema bool   `json:"hasOutputSchema"`
		} `json:"tools"`
		List, Errors, BadFilter, Get, Unknown, Explain, Warnings, Sources tsResult
		Templates                                                         []string       `json:"templates"`
		Resource                                                          map[string]any `json:"resource"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("mcpserver-client.mjs printed %q: %v", stdout, err)
	}
	if out.ProtocolVersion != "2025-11-25" {
		t.Errorf("negotiated %q", out.ProtocolVersion)
	}
	var names []string
	for _, tool := range out.Tools {
		names = append(names, tool.Name)
		if !tool.HasInputSchema || !tool.HasOutputSchema {
			t.Errorf("%s: schemas %+v", tool.Name, tool)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"explain_call", "get_call", "list_calls", "list_warnings", "sources"}) {
		t.Errorf("tools %v", names)
	}
	var list ListCallsOutput
	if err := json.Unmarshal(out.List.Structured, &list); err != nil || out.List.IsError || list.Held != 4 || !strings.Contains(out.List.Text, "4 of 4 calls") {
		t.Errorf("list_calls: %v %+v %q", err, list, out.List.Text)
	}
	if err := json.Unmarshal(out.Errors.Structured, &list); err != nil || list.Matched != 1 || list.Calls[0].ToolCallID != "call_fail" {
		t.Errorf("status:error: %s", out.Errors.Structured)
	}
	if !out.BadFilter.IsError || !strings.Contains(out.BadFilter.Text, "no flag whatever") {
		t.Errorf("a bad filter: %+v", out.BadFilter)
	}
	if out.Get.IsError || !strings.Contains(string(out.Get.Structured), `"id":"task-2/call_big"`) {
		t.Errorf("get_call: %+v", out.Get)
	}
	if !out.Unknown.IsError || !strings.Contains(out.Unknown.Text, "give an id from list_calls") {
		t.Errorf("an unknown id: %+v", out.Unknown)
	}
	if out.Explain.IsError || !strings.Contains(out.Explain.Text, "HTTP 401 · JSON-RPC -32001") {
		t.Errorf("explain_call: %+v", out.Explain)
	}
	if out.Warnings.IsError || !strings.Contains(string(out.Warnings.Structured), "text_offloaded") {
		t.Errorf("list_warnings: %+v", out.Warnings)
	}
	if out.Sources.IsError || !strings.Contains(string(out.Sources.Structured), `"name":"orders"`) {
		t.Errorf("sources: %+v", out.Sources)
	}
	if !slices.Equal(out.Templates, []string{"toolscope://calls/{id}"}) || out.Resource["id"] != "task-2/call_big" {
		t.Errorf("resources: %v %v", out.Templates, out.Resource["id"])
	}
}

// TestConformance runs the MCP conformance suite's server scenarios against
// the endpoint; conformance-baseline.yml lists those that do not apply
// (they call the suite's own fixture tools, resources and prompts) and
// why. The suite (0.1.16) speaks 2025-06-18 and 2025-11-25; 2026-07-28 is
// tested by the go-sdk client.
func TestConformance(t *testing.T) {
	f := newFixture(t, Config{})
	f.traffic()
	out, err := runNode(t, 4*time.Minute, "--import", "./node20.mjs", "node_modules/@modelcontextprotocol/conformance/dist/index.js",
		"server", "--url", f.mcp.URL(), "--suite", "all", "--expected-failures", "conformance-baseline.yml", "-o", t.TempDir())
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	summary := out[strings.LastIndex(out, "=== SUMMARY ==="):]
	for _, applies := range []string{"server-initialize", "logging-set-level", "ping", "tools-list", "server-sse-multiple-streams", "resources-list", "prompts-list", "dns-rebinding-protection"} {
		if !strings.Contains(summary, "✓ "+applies+":") {
			t.Errorf("%s did not pass:\n%s", applies, summary)
		}
	}
}
