package demo

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// Platform rules of the simulation.
const (
	maxAttempts  = 2           // a failed call is retried once
	retryBackoff = time.Second // before the retry, at speed 1
	taskSettle   = 300 * time.Millisecond
)

// instance is the MCP server instance as the platform stores it.
type instance struct {
	ID         string
	Name       string
	URL        string // the endpoint the platform calls (through the tap)
	Credential string // static credential, sent as Authorization: Bearer
	Secret     []byte // context_secret
	Timeout    time.Duration
	// OtherID is another instance's id: the aud of the wrong-instance token.
	OtherID string
}

// task is one AgentArea task: the context every call of it carries.
type task struct {
	ID          string
	Title       string
	Workspace   string // slug, in the feed path
	WorkspaceID string
	AgentID     string
	ExecutionID string
	// TraceParent is the W3C trace context of the agent's run of the task:
	// every call's _meta carries it, so exported spans land in that trace.
	TraceParent string
	EndUserID   string
	Metadata    map[string]any

	iteration atomic.Int64
}

// toolCall is one call a task's agent makes.
type toolCall struct {
	Tool  string
	Args  map[string]any
	Fault tokenFault
}

// platform simulates AgentArea's side of a tool call: it mints a context
// token per call, calls the instance on a new connection, relays progress to
// the task feed under the 0.5 s rule, retries a broken call with the same
// idempotency key, times calls out, and applies the result rules.
type platform struct {
	clk    pace
	inst   instance
	rpc    *rpcClient
	feeds  *feedServer
	nextID atomic.Int64 // JSON-RPC ids, also the progress tokens
	// planned: when each notification was planned (the relay rule's clock)
	planned *plannedTimes
}

// attemptResult is how one attempt ended.
type attemptResult struct {
	out       rpcOutcome
	err       error // transport failure or broken stream
	retryable bool
	timedOut  bool
}

// execute runs one tool call of a task to its tool.result.
func (p *platform) execute(ctx context.Context, t *task, c toolCall) {
	callID := newID("call_", 8)
	agentName := decoder.QualifiedName(p.inst.Name, c.Tool)
	iteration := t.iteration.Add(1)
	p.feeds.publish(t, "tool.call", map[string]any{"task_id": t.ID, "tool_name": agentName,
		"tool_call_id": callID, "iteration": iteration, "arguments": c.Args})
	started := time.Now()
	// One relay per call: the 0.5 s rule spans the attempts of a call.
	relay := &progressRelay{feeds: p.feeds, task: t, agentName: agentName, callID: callID, clk: p.clk, planned: p.planned}
	var res attemptResult
	attempt := 1
	for ; ; attempt++ {
		res = p.attempt(ctx, t, c, callID, relay)
		if !res.retryable || attempt == maxAttempts || ctx.Err() != nil {
			break
		}
		if p.clk.sleep(ctx, retryBackoff) != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return // the demo is stopping: no result to report
	}
	data := map[string]any{"task_id": t.ID, "tool_name": agentName, "tool_call_id": callID,
		"arguments": c.Args, "iteration": iteration, "execution_time": time.Since(started).Seconds(),
		"source": "mcp", "server_instance_id": p.inst.ID, "server_name": p.inst.Name}
	if attempt > 1 {
		data["attempt"] = attempt
	}
	p.describeOutcome(res, data)
	p.feeds.publish(t, "tool.result", data)
}

// describeOutcome fills a tool.result's success, error and result fields.
func (p *platform) describeOutcome(res attemptResult, data map[string]any) {
	fail := func(msg string) {
		data["success"] = false
		data["error"] = msg
	}
	host := p.inst.URL
	if u, err := url.Parse(p.inst.URL); err == nil {
		host = u.Host
	}
	switch {
	case res.timedOut:
		fail(p.timeoutMessage())
	case res.err != nil:
		fail("MCP tool call failed: " + res.err.Error())
	case res.out.HTTPStatus == http.StatusUnauthorized || res.out.HTTPStatus == http.StatusForbidden:
		fail(fmt.Sprintf("MCP tool call failed: %s rejected the credentials (HTTP %d)", host, res.out.HTTPStatus))
	case res.out.Err != nil:
		fail(fmt.Sprintf("MCP tool call failed: %s (%d)", res.out.Err.Message, res.out.Err.Code))
	default:
		applyResultRules(res.out.Summary, data)
	}
}

// attempt makes one try of a call: a new token, a new request id, a new
// connection; the same task, tool_call_id, idempotency key and arguments.
func (p *platform) attempt(ctx context.Context, t *task, c toolCall, callID string, relay *progressRelay) attemptResult {
	id := p.nextID.Add(1)
	meta := t.meta(callID, id)
	aud, toolClaim := p.inst.ID, c.Tool
	switch c.Fault {
	case tokenWrongInstance:
		aud = p.inst.OtherID
	case tokenWrongTool:
		toolClaim = toolExportLedger
	}
	token, err := mintToken(p.inst.Secret, aud, toolClaim, meta, time.Now())
	if err != nil {
		return attemptResult{err: err}
	}
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+p.inst.Credential)
	hdr.Set(model.ContextHeader, token)

	// The instance's timeout, progress included. When it passes, the platform
	// sends notifications/cancelled (on a new connection, while the call's
	// stream is still open, so the server can match it) and then closes the
	// stream, which is the cancellation in 2026-07-28.
	reqCtx, closeStream := context.WithCancel(ctx)
	defer closeStream()
	var timedOut atomic.Bool
	cancelled := make(chan struct{})
	timer := time.AfterFunc(p.inst.Timeout, func() {
		defer close(cancelled)
		timedOut.Store(true)
		p.cancelCall(ctx, id, p.timeoutMessage())
		closeStream()
	})
	out, err := p.rpc.call(reqCtx, rpcRequest{URL: p.inst.URL, ID: id, Method: jsonrpc.MethodToolsCall,
		Name: c.Tool, Header: hdr,
		Params: map[string]any{"name": c.Tool, "arguments": c.Args, "_meta": meta}}, relay.onProgress)
	if !timer.Stop() {
		<-cancelled
	}
	switch {
	case timedOut.Load():
		return attemptResult{timedOut: true}
	case err == nil:
		return attemptResult{out: out}
	default:
		return attemptResult{out: out, err: err, retryable: ctx.Err() == nil}
	}
}

func (p *platform) timeoutMessage() string {
	return fmt.Sprintf("MCP tool call timed out: no result within %s s",
		strconv.FormatFloat(p.inst.Timeout.Seconds(), 'f', -1, 64))
}

// cancelCall tells the server the platform gave up on request id, with
// notifications/cancelled on a new connection (AgentArea sends it even to
// 2026-07-28 servers, for which closing the stream is what cancels).
func (p *platform) cancelCall(ctx context.Context, id int64, reason string) {
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+p.inst.Credential)
	nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = p.rpc.notify(nctx, rpcRequest{URL: p.inst.URL, Method: "notifications/cancelled", Header: hdr,
		Params: map[string]any{"requestId": id, "reason": reason}})
}

// meta is the call's _meta, as decoder.PlatformMeta builds it, with the
// task's W3C traceparent.
func (t *task) meta(callID string, requestID int64) map[string]any {
	m := decoder.PlatformMeta(decoder.CallContext{TaskID: t.ID, ToolCallID: callID, WorkspaceID: t.WorkspaceID,
		AgentID: t.AgentID, EndUserID: t.EndUserID, Metadata: t.Metadata}, requestID)
	if t.TraceParent != "" {
		m["traceparent"] = t.TraceParent
	}
	return m
}

// progressRelay relays one attempt's progress notifications to the task feed
// under the platform's rule: at most one per 0.5 s, completion always.
type progressRelay struct {
	feeds     *feedServer
	task      *task
	agentName string
	callID    string

	clk     pace
	planned *plannedTimes
	mu      sync.Mutex
	// last relayed, in scenario time; started once one was
	last    time.Duration
	started bool
}

// onProgress applies the platform's rule, at most one per 0.5 s and the
// completion always, on the scenario clock: the time the notification was
// planned at, else (a notification the demo did not plan) when it came.
func (r *progressRelay) onProgress(pr jsonrpc.Progress) {
	now, ok := r.planned.get(string(pr.Token), pr.Progress)
	if !ok {
		now = r.clk.scenario(time.Now())
	}
	r.mu.Lock()
	relay := pr.Done() || !r.started || now-r.last >= model.RelayInterval
	if relay {
		r.started, r.last = true, now
	}
	r.mu.Unlock()
	if !relay {
		return
	}
	var total any // null when the server sent none
	if pr.Total != nil {
		total = *pr.Total
	}
	r.feeds.publish(r.task, "tool.progress", map[string]any{"task_id": r.task.ID, "tool_name": r.agentName,
		"tool_call_id": r.callID, "progress": pr.Progress, "total": total, "message": pr.Message})
}
