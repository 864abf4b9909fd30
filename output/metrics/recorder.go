package metrics

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"toolscope/model"
)

// durationBuckets are the MCP semantic conventions' advised boundaries for
// the operation duration histograms, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Attribute keys of toolscope's own (outside the conventions).
const (
	attrSource  = "toolscope.source"          // tap, feed, demo: a call seen by a feed and a tap counts once in each
	attrVerdict = "toolscope.context.verdict" // valid, rejected, unverified, absent
	attrCode    = "toolscope.warning.code"
	attrRelayed = "toolscope.progress.relayed"
	other       = "_OTHER"
)

// recorder turns events into measurements. The duration is the client
// side's (mcp.client.operation.duration): a tap stands where the client
// sends the request to the server and receives the answer, so what it
// times is what the conventions call the sender's view (the server's
// processing plus the network between tap and server), not the server's
// own receipt-to-answer time, which a tap cannot see; a feed's
// execution_time is the platform's, the MCP client's.
type recorder struct {
	duration  mcpconv.ClientOperationDuration
	calls     metric.Int64Counter
	progress  metric.Int64Counter
	verdicts  metric.Int64Counter
	asked     metric.Int64Counter
	warnings  metric.Int64Counter
	tools     *nameCap
	warnCodes map[string]bool
}

func newRecorder(m metric.Meter, maxTools int) (*recorder, error) {
	r := &recorder{tools: newNameCap(maxTools), warnCodes: map[string]bool{}}
	for _, w := range model.WarningCodes {
		r.warnCodes[string(w.Code)] = true
	}
	var err error
	if r.duration, err = mcpconv.NewClientOperationDuration(m, metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, err
	}
	counters := []struct {
		c          *metric.Int64Counter
		name, help string
	}{
		{&r.calls, "toolscope.tool.calls", "tools/call requests seen (each attempt once)"},
		{&r.progress, "toolscope.tool.progress", "progress notifications seen"},
		{&r.verdicts, "toolscope.context.verdicts", "calls by the verdict on their X-AgentArea-Context token"},
		{&r.asked, "toolscope.tool.input_requests", "answers asking the client for input (MCP 2026-07-28 input_required): rounds of multi-round calls"},
		{&r.warnings, "toolscope.warnings", "warnings by code"},
	}
	for _, c := range counters {
		if *c.c, err = m.Int64Counter(c.name, metric.WithDescription(c.help), metric.WithUnit("{"+lastWord(c.name)+"}")); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func lastWord(name string) string { return name[strings.LastIndexByte(name, '.')+1:] }

func (r *recorder) record(e model.Event) {
	ctx := context.Background()
	source := attribute.String(attrSource, e.Source)
	switch e.Kind {
	case model.KindToolCall:
		if e.Round > 1 {
			return // a later round of a call already counted
		}
		tool := r.tools.value(e.Tool)
		r.calls.Add(ctx, 1, metric.WithAttributes(source, attribute.String("gen_ai.tool.name", tool)))
		if e.Context != nil && e.Context.Verdict != "" {
			r.verdicts.Add(ctx, 1, metric.WithAttributes(source, attribute.String(attrVerdict, verdictValue(e.Context.Verdict))))
		}
	case model.KindToolProgress:
		if e.Relayed == nil { // plain MCP: nothing relays
			r.progress.Add(ctx, 1, metric.WithAttributes(source))
			break
		}
		r.progress.Add(ctx, 1, metric.WithAttributes(source, attribute.Bool(attrRelayed, *e.Relayed)))
	case model.KindToolResult:
		if e.DurationMS == 0 && e.Source == model.SourceFeed {
			return // the platform said no execution_time: no duration to record
		}
		attrs := []attribute.KeyValue{source,
			r.duration.AttrGenAIToolName(r.tools.value(e.Tool)),
			r.duration.AttrGenAIOperationName(mcpconv.GenAIOperationNameExecuteTool)}
		if errType := resultErrorType(&e); errType != "" {
			attrs = append(attrs, r.duration.AttrErrorType(mcpconv.ErrorTypeAttr(errType)))
		}
		if e.RPCCode != 0 {
			attrs = append(attrs, r.duration.AttrRPCResponseStatusCode(strconv.Itoa(e.RPCCode)))
		}
		// Each round is a tools/call request of its own on the wire: timed as one.
		r.duration.Record(ctx, float64(e.DurationMS)/1000, mcpconv.MethodNameToolsCall, attrs...)
		if e.ResultType == model.ResultInputRequired {
			r.asked.Add(ctx, 1, metric.WithAttributes(source, attribute.String("gen_ai.tool.name", r.tools.value(e.Tool))))
		}
	case model.KindWarning:
		code := e.Code
		if !r.warnCodes[code] {
			code = other
		}
		r.warnings.Add(ctx, 1, metric.WithAttributes(source, attribute.String(attrCode, code)))
	case model.KindEvent:
		r.recordPlain(ctx, source, &e)
	}
}

// recordPlain times the other requests and notifications a tap saw
// (initialize, tools/list...): their event carries duration_ms.
func (r *recorder) recordPlain(ctx context.Context, source attribute.KeyValue, e *model.Event) {
	method, ok := strings.CutPrefix(e.EventType, "mcp.")
	if !ok || e.Source == model.SourceFeed || len(e.Data) == 0 {
		return
	}
	var d struct {
		DurationMS *float64        `json:"duration_ms"`
		From       string          `json:"from"`
		HTTPStatus int             `json:"http_status"`
		Error      json.RawMessage `json:"error"`
	}
	if json.Unmarshal(e.Data, &d) != nil || d.DurationMS == nil || d.From == "server" {
		return
	}
	attrs := []attribute.KeyValue{source}
	if errType := plainErrorType(d.HTTPStatus, d.Error); errType != "" {
		attrs = append(attrs, r.duration.AttrErrorType(mcpconv.ErrorTypeAttr(errType)))
	}
	r.duration.Record(ctx, *d.DurationMS/1000, methodName(method), attrs...)
}

// knownMethods are the conventions' mcp.method.name values: any other
// method is recorded as _OTHER, so a client cannot make series at will.
var knownMethods = func() map[string]mcpconv.MethodNameAttr {
	m := map[string]mcpconv.MethodNameAttr{}
	for _, v := range []mcpconv.MethodNameAttr{
		mcpconv.MethodNameNotificationsCancelled, mcpconv.MethodNameInitialize, mcpconv.MethodNameNotificationsInitialized,
		mcpconv.MethodNameNotificationsProgress, mcpconv.MethodNamePing, mcpconv.MethodNameResourcesList,
		mcpconv.MethodNameResourcesTemplatesList, mcpconv.MethodNameResourcesRead, mcpconv.MethodNameNotificationsResourcesListChanged,
		mcpconv.MethodNameResourcesSubscribe, mcpconv.MethodNameResourcesUnsubscribe, mcpconv.MethodNameNotificationsResourcesUpdated,
		mcpconv.MethodNamePromptsList, mcpconv.MethodNamePromptsGet, mcpconv.MethodNameNotificationsPromptsListChanged,
		mcpconv.MethodNameToolsList, mcpconv.MethodNameToolsCall, mcpconv.MethodNameNotificationsToolsListChanged,
		mcpconv.MethodNameLoggingSetLevel, mcpconv.MethodNameNotificationsMessage, mcpconv.MethodNameSamplingCreateMessage,
		mcpconv.MethodNameCompletionComplete, mcpconv.MethodNameRootsList, mcpconv.MethodNameNotificationsRootsListChanged,
		mcpconv.MethodNameElicitationCreate,
	} {
		m[string(v)] = v
	}
	return m
}()

func methodName(method string) mcpconv.MethodNameAttr {
	if m, ok := knownMethods[method]; ok {
		return m
	}
	return other
}

func verdictValue(v string) string {
	switch v {
	case model.VerdictValid, model.VerdictRejected, model.VerdictUnverified, model.VerdictAbsent:
		return v
	}
	return other
}

// resultErrorType is error.type as the conventions set it for tools/call:
// the JSON-RPC error code, tool_error for a result with isError, the HTTP
// status of a failed exchange; "" for a success.
func resultErrorType(e *model.Event) string {
	switch {
	case e.RPCCode != 0: // a JSON-RPC error is is_error too
		return strconv.Itoa(e.RPCCode)
	case e.IsError:
		return "tool_error"
	case e.HTTPStatus >= 400:
		return strconv.Itoa(e.HTTPStatus)
	case e.TimedOut:
		return "timeout"
	case e.Error != "":
		return other
	}
	return ""
}

func plainErrorType(status int, rpcErr json.RawMessage) string {
	var e struct {
		Code int `json:"code"`
	}
	switch {
	case len(rpcErr) > 0 && json.Unmarshal(rpcErr, &e) == nil && e.Code != 0:
		return strconv.Itoa(e.Code)
	case len(rpcErr) > 0:
		return other
	case status >= 400:
		return strconv.Itoa(status)
	}
	return ""
}

// nameCap keeps the first max distinct names as label values; the rest
// are _OTHER. Tool names come from the wire: without a cap a client could
// make series without end.
type nameCap struct {
	mu    sync.Mutex
	max   int
	names map[string]struct{}
}

func newNameCap(max int) *nameCap { return &nameCap{max: max, names: map[string]struct{}{}} }

func (c *nameCap) value(name string) string {
	if name == "" {
		return other
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.names[name]; ok {
		return name
	}
	if len(c.names) >= c.max || len(name) > maxToolNameBytes {
		return other
	}
	c.names[name] = struct{}{}
	return name
}

// maxToolNameBytes: MCP tool names are at most 128 characters; a longer
// one is not a tool name worth a series.
const maxToolNameBytes = 128
