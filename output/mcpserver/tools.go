package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolscope/model"
)

// Results are bounded: a list holds at most maxLimit rows (defaultLimit
// unless asked), and every text line is cut (bound.go cuts a call).
const (
	defaultLimit = 50
	maxLimit     = 500
	maxLineBytes = 300
	// maxExplainBytes bounds one line of explain_call's text: a finding
	// with its rule and what must be done is said whole.
	maxExplainBytes = 1500
)

// schemaTypes are the types whose inferred schema would be wrong: raw
// JSON is any JSON value (not an array of bytes), an event is an object
// whose encoder adds fields of its kind (the JSON-lines interface), and an
// explanation's findings are an array, empty when there are none (never
// null). Each is an object, not the schema `true`, which the TypeScript
// SDK refuses.
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Description: "any JSON value, as it was sent"},
	reflect.TypeFor[model.Event]():     {Type: "object"},
	reflect.TypeFor[[]model.Finding](): {Type: "array", Items: must(jsonschema.For[model.Finding](nil))},
}

// must is the schema of a type whose inference cannot fail (a plain struct).
func must(s *jsonschema.Schema, err error) *jsonschema.Schema {
	if err != nil {
		panic(err)
	}
	return s
}

func schemaFor[T any]() (*jsonschema.Schema, error) {
	return jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: schemaTypes})
}

// addTool registers one tool with schemas inferred from its input and
// output types.
func addTool[In, Out any](s *mcp.Server, name, title, description string, h mcp.ToolHandlerFor[In, Out]) error {
	in, err := schemaFor[In]()
	if err != nil {
		return fmt.Errorf("%s input schema: %w", name, err)
	}
	out, err := schemaFor[Out]()
	if err != nil {
		return fmt.Errorf("%s output schema: %w", name, err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: name, Title: title, Description: description, InputSchema: in, OutputSchema: out,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}}, h)
	return nil
}

func (s *Server) addTools() error {
	for _, add := range []func() error{
		func() error {
			return addTool(s.mcp, "list_calls", "List tool calls",
				"The tool calls toolscope saw, newest first: id, tool, status, cause, token verdict, flags, duration, rounds. "+
					"filter uses the screen's syntax: terms separated by spaces, all must match, -term negates one; "+
					"tool:NAME, task:ID, status:ok,error,running,needs-input,cancelled,late, source:tap|feed|NAME, "+
					"flag:"+strings.Join(model.FilterFlagNames, ",")+", or plain text (ids, names, arguments, result and error text).",
				s.listCalls)
		},
		func() error {
			return addTool(s.mcp, "get_call", "Get one call",
				"Everything seen of one call (an id from list_calls, or a tool_call_id): timeline, token header, claims and "+
					"verification steps, _meta, SOAT context, headers (credentials redacted), arguments, progress, attempts and "+
					"their results and, for a multi-round call, its rounds (what the server asked, what the client answered, the server's and the waiting time), warnings. The same document as the resource toolscope://calls/{id}. Long values are cut, said in cut.",
				s.getCall)
		},
		func() error {
			return addTool(s.mcp, "explain_call", "Explain one call",
				"Why a call ended as it did, in plain words: each finding with the contract rule it touches and what the server "+
					"or the platform must do (the HTTP status and JSON-RPC code a server must answer, the 0.5 s relay rule, the "+
					"platform's size limits and timeout).",
				s.explainCall)
		},
		func() error {
			return addTool(s.mcp, "list_warnings", "List warnings",
				"Contract and toolscope warnings, newest first, each with its code, message, the call it belongs to (if any), "+
					"what the code means and the rule it enforces. code filters by one warning code.",
				s.listWarnings)
		},
		func() error {
			return addTool(s.mcp, "sources", "List sources",
				"Every source toolscope watches (taps, feeds, a replay, the demo) with its state, detail, and counts.",
				s.sources)
		},
	} {
		if err := add(); err != nil {
			return err
		}
	}
	return nil
}

// limit is the rows asked for, within the bound.
func limit(n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("limit %d: give 1 to %d (default %d)", n, maxLimit, defaultLimit)
	case n == 0:
		return defaultLimit, nil
	}
	return min(n, maxLimit), nil
}

// textResult is the short text beside the structured content, each line
// made terminal safe and cut to maxLineBytes.
func textResult(lines []string) *mcp.CallToolResult { return textResultOf(lines, maxLineBytes) }

func textResultOf(lines []string, width int) *mcp.CallToolResult {
	for i, l := range lines {
		lines[i] = model.Truncate(model.Sanitize(l), width)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(lines, "\n")}}}
}

// lookupCall is the one lookup of a call by the id a client gives (a
// tool's argument, a resource URI): the store's call id (list_calls' id),
// else a tool_call_id; nil when none.
func lookupCall(snap *model.Snapshot, id string) *model.Call {
	return snap.FindCall(strings.TrimSpace(id))
}

// findCall is lookupCall, or an error saying what ids are valid.
func findCall(snap *model.Snapshot, id string) (*model.Call, error) {
	if c := lookupCall(snap, id); c != nil {
		return c, nil
	}
	msg := fmt.Sprintf("no call %q among the %d calls toolscope holds: give an id from list_calls (or a tool_call_id)", id, len(snap.Calls))
	if n := len(snap.Calls); n > 0 {
		msg += fmt.Sprintf(", e.g. %q", snap.Calls[n-1].ID)
	}
	if snap.Evicted > 0 {
		msg += fmt.Sprintf("; %d finished calls were evicted to bound memory (--max-calls)", snap.Evicted)
	}
	return nil, fmt.Errorf("%s", msg)
}
