// Package mock serves a recorded MCP server again: from a recording's wire
// lines (what a tap passed, HTTP or stdio) it learns what the server
// answered to each request, and answers live clients the same way, over
// Streamable HTTP or stdio: tools/list as recorded, a tools/call by the
// recorded answer to the same tool with JSON-equal arguments (its progress
// at the recorded spacing), anything else by method.
package mock

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
	"toolscope/stream/replay"
)

// step is one server message of an answer, due at its recorded offset from
// the request.
type step struct {
	after time.Duration
	msg   json.RawMessage // a notification (progress, logging) or request; the final response is answer.final
}

// answer is what the server sent for one request: messages on the way, then
// the response.
type answer struct {
	steps    []step
	final    json.RawMessage // the JSON-RPC response (its id is the live request's when served)
	finalAt  time.Duration
	stream   bool   // it came as an event stream (HTTP), so it is served as one
	session  bool   // the answer carried an Mcp-Session-Id (HTTP): a session starts
	progress string // the recorded request's progress token (IDKey), to find its progress
}

// entry is one recorded request shape (a call with its arguments, or a
// method with its params) and its answers, served in recorded order; past
// the last one, the last is served again.
type entry struct {
	params  any    // the tools/call arguments, or the method's params without _meta (decoded)
	text    string // params as recorded, for error messages
	state   string // a multi-round call's requestState (2026-07-28), "" for its first round
	answers []*answer
	next    int
}

func (e *entry) take() *answer {
	a := e.answers[min(e.next, len(e.answers)-1)]
	e.next++
	return a
}

// Script is everything a recording says the server answered.
type Script struct {
	tools   map[string][]*entry // tools/call by tool name
	methods map[string][]*entry // any other request by method
	order   []string            // tool names in recorded order
	// Exchanges and Calls count what was learned (said on start).
	Exchanges, Calls int
}

func newScript() *Script {
	return &Script{tools: map[string][]*entry{}, methods: map[string][]*entry{}}
}

// Tools are the tool names the recording has calls of.
func (s *Script) Tools() []string { return s.order }

// request is a client request being learned: its shape and its answer so far.
type request struct {
	msg jsonrpc.Message
	at  time.Time
	ans *answer
}

// add files a request and its (complete) answer.
func (s *Script) add(r *request) {
	if r.ans == nil || r.ans.final == nil {
		return // never answered in the recording: nothing to serve
	}
	if r.msg.Method == jsonrpc.MethodToolsCall {
		var p struct {
			Name         string          `json:"name"`
			Arguments    json.RawMessage `json:"arguments"`
			RequestState json.RawMessage `json:"requestState"`
		}
		if json.Unmarshal(r.msg.Params, &p) != nil || p.Name == "" {
			return
		}
		state := ""
		if len(p.RequestState) > 0 {
			state = canonical(decode(p.RequestState))
		}
		args := arguments(p.Arguments)
		if _, ok := s.tools[p.Name]; !ok {
			s.order = append(s.order, p.Name)
		}
		s.tools[p.Name] = addAnswer(s.tools[p.Name], args, state, r.ans)
		s.Calls++
		return
	}
	s.methods[r.msg.Method] = addAnswer(s.methods[r.msg.Method], paramsWithoutMeta(r.msg.Params), "", r.ans)
}

func addAnswer(entries []*entry, params any, state string, a *answer) []*entry {
	for _, e := range entries {
		if e.state == state && canonical(e.params) == canonical(params) {
			e.answers = append(e.answers, a)
			return entries
		}
	}
	return append(entries, &entry{params: params, text: canonical(params), state: state, answers: []*answer{a}})
}

// findCall is the entry answering a tools/call, or why there is none.
func (s *Script) findCall(params json.RawMessage) (*entry, string, error) {
	var p struct {
		Name         string          `json:"name"`
		Arguments    json.RawMessage `json:"arguments"`
		RequestState json.RawMessage `json:"requestState"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Name == "" {
		return nil, "", fmt.Errorf("tools/call without a tool name")
	}
	state := ""
	if len(p.RequestState) > 0 {
		state = canonical(decode(p.RequestState))
	}
	entries, ok := s.tools[p.Name]
	if !ok {
		return nil, p.Name, &unrecordedCall{msg: fmt.Sprintf("toolscope mock: the recording holds no call of tool %q (it holds calls of: %s)", p.Name, list(s.order)),
			data: map[string]any{"tool": p.Name, "recorded_tools": s.order}}
	}
	args := arguments(p.Arguments)
	for _, e := range entries {
		if e.state == state && matches(e.params, args) {
			return e, p.Name, nil
		}
	}
	var recorded []string
	var recordedArgs []any
	for _, e := range entries {
		if len(recordedArgs) < maxRecordedInError {
			recordedArgs = append(recordedArgs, e.params)
		}
		what := e.text
		if e.state != "" {
			what += " (a later round, requestState " + model.Clip(e.state, 60) + ")"
		}
		recorded = append(recorded, model.Clip(what, 200))
	}
	return nil, p.Name, &unrecordedCall{msg: fmt.Sprintf("toolscope mock: no recorded answer to tool %q with arguments %s; recorded for %q: %s",
		p.Name, model.Clip(canonical(args), 200), p.Name, list(recorded)),
		data: map[string]any{"tool": p.Name, "arguments": args, "recorded_arguments": recordedArgs}}
}

// maxRecordedInError bounds the recorded argument sets an error's data lists.
const maxRecordedInError = 20

// unrecordedCall is a tools/call the recording holds no answer to: its
// message says it, its data (the JSON-RPC error's) lists what is recorded.
type unrecordedCall struct {
	msg  string
	data map[string]any
}

func (u *unrecordedCall) Error() string { return u.msg }

// findMethod is the entry answering another request: the same params
// (without _meta) if recorded, else the method's first.
func (s *Script) findMethod(method string, params json.RawMessage) *entry {
	entries := s.methods[method]
	if len(entries) == 0 {
		return nil
	}
	want := canonical(paramsWithoutMeta(params))
	for _, e := range entries {
		if e.text == want {
			return e
		}
	}
	return entries[0]
}

// recordedMethods are the methods with an answer, for error messages.
func (s *Script) recordedMethods() []string {
	var ms []string
	for m := range s.methods {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	return ms
}

func list(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	const most = 8
	out := ""
	for i, it := range items {
		if i == most {
			return out + fmt.Sprintf(", and %d more", len(items)-most)
		}
		if i > 0 {
			out += ", "
		}
		out += it
	}
	return out
}

// Load learns a script from a recording's wire events, HTTP or stdio.
func Load(events []model.Event) (*Script, error) {
	s := newScript()
	var stdio stdioLearner
	for _, e := range events {
		if e.Kind != model.KindWire || e.Wire == nil {
			continue
		}
		switch e.Wire.Transport {
		case model.TransportHTTP:
			s.learnExchange(e)
		case model.TransportStdio:
			stdio.line(s, e)
		}
	}
	stdio.flush(s)
	if s.Exchanges == 0 {
		return nil, fmt.Errorf("the recording holds no exchange to serve (no wire lines: record with 'toolscope tap --record FILE', toolscope 0.x recordings hold only events)")
	}
	return s, nil
}

// LoadRecording reads the recording at path (a rotated set whole, oldest
// part first) and learns its script.
func LoadRecording(ctx context.Context, path string) (*Script, error) {
	set, err := replay.OpenSet(path)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	var wires []model.Event
	err = replay.Play(ctx, set, replay.Options{Name: path}, model.SinkFunc(func(e model.Event) {
		if e.Kind == model.KindWire {
			wires = append(wires, e)
		}
	}))
	if err != nil {
		return nil, err
	}
	return Load(wires)
}
