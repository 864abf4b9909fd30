package otlp

import (
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"toolscope/model"
)

// Attribute keys the semconv module does not carry (MCP's moved to the
// GenAI conventions) and toolscope's own. docs/opentelemetry.md lists them.
const (
	keyMCPMethodName      = attribute.Key("mcp.method.name")
	keyMCPSessionID       = attribute.Key("mcp.session.id")
	keyMCPProtocolVersion = attribute.Key("mcp.protocol.version")
	// keyAgentAreaToolCallID is the _meta key itself, so a search for what
	// the agent's tool call carried finds the span.
	keyAgentAreaToolCallID = attribute.Key("agentarea/tool_call_id")
)

// attributes of an attempt's span. Secrets never: no token, credential or
// header value; arguments and results as sizes and short previews.
func (a *attemptState) attributes() []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 32)
	str := func(k attribute.Key, v string) {
		if v != "" {
			kv = append(kv, k.String(v))
		}
	}
	num := func(k attribute.Key, v int) {
		if v != 0 {
			kv = append(kv, k.Int(v))
		}
	}
	flag := func(k attribute.Key, v bool) {
		if v {
			kv = append(kv, k.Bool(true))
		}
	}
	kv = append(kv, semconv.GenAIOperationNameExecuteTool)
	str(semconv.GenAIToolNameKey, a.tool)
	str(semconv.GenAIToolCallIDKey, a.toolCallID)
	str(keyAgentAreaToolCallID, a.toolCallID)
	if a.exchange != "" { // a tap saw the JSON-RPC request
		kv = append(kv, keyMCPMethodName.String(methodToolsCall))
		str(semconv.JSONRPCRequestIDKey, requestIDText(a.requestID))
		str(keyMCPSessionID, sessionDigest(a.sessionID))
		str(keyMCPProtocolVersion, a.protocolVersion)
		str("toolscope.exchange", a.exchange)
	}
	if a.result.RPCCode != 0 {
		kv = append(kv, semconv.RPCResponseStatusCodeKey.String(strconv.Itoa(a.result.RPCCode)))
	}

	str("agentarea.task.id", a.taskID)
	kv = append(kv, attribute.Int("agentarea.attempt", a.n))
	kv = append(kv, attribute.Bool("agentarea.replayed", a.result.Replayed))
	str("agentarea.tool.qualified_name", a.agentName)
	if c := a.context; c != nil {
		str("agentarea.context.verdict", c.Verdict)
		num("agentarea.context.http_status", c.HTTPStatus)
		num("agentarea.context.rpc_code", c.RPCCode)
		str("agentarea.context.reason", model.Clip(c.Reason, maxMessageBytes))
		kv = append(kv, attribute.Bool("agentarea.credential.present", c.CredentialPresent))
	}
	str("agentarea.denied", a.result.Denied)
	if a.hasResult {
		kv = append(kv,
			attribute.Int("agentarea.result.text.chars", a.result.TextChars),
			attribute.Bool("agentarea.result.offloaded", a.result.Offloaded),
			attribute.Int("agentarea.result.structured_content.bytes", a.result.StructuredContentBytes),
			attribute.Bool("agentarea.result.structured_content.dropped", a.result.StructuredContentDropped),
			attribute.Int("agentarea.result.images.count", len(a.result.Images)))
		bytes, problems := 0, 0
		for _, im := range a.result.Images {
			bytes += im.Size
			if im.Problem != "" {
				problems++
			}
		}
		num("agentarea.result.images.bytes", bytes)
		num("agentarea.result.images.problems", problems)
		str("toolscope.result.preview", model.Truncate(a.result.TextPreview, previewBytes))
		flag("toolscope.result.late", a.result.Late)
		num("toolscope.http.status_code", a.result.HTTPStatus)
	}

	kv = append(kv, attribute.StringSlice("toolscope.sources", a.sources))
	num("toolscope.arguments.bytes", a.argumentBytes)
	str("toolscope.arguments.preview", argumentsPreview(a.arguments))
	kv = append(kv, attribute.Int("toolscope.progress.sent_count", a.sent))
	if a.relays || a.feedCall {
		kv = append(kv, attribute.Int("toolscope.progress.relayed_count", a.relayedCount()))
	}
	num("toolscope.progress.after_cancel_count", a.afterCancel)
	num("toolscope.warnings", a.warnings)
	num("toolscope.rounds", a.rounds)
	num("toolscope.events.dropped", a.events.dropped())
	str("toolscope.cancel.reason", a.cancelled)
	flag("toolscope.unfinished", a.unfinished)
	return kv
}

// relayedCount is what the platform relayed: a feed's count when a feed saw
// the call, else the tap's prediction under the 0.5 s rule.
func (a *attemptState) relayedCount() int {
	if a.feedCall || a.relayed > 0 {
		return a.relayed
	}
	return a.wouldRelay
}
