package model

// The contract's rules explain names (the documents are in the spec: the
// AgentArea MCP tool call context, MCP over Streamable HTTP).
const (
	ruleVerification = "AgentArea tool context, \"Verification a server performs\": signature (HS256 only), " +
		"exp/iat (at most 10 minutes old, 30 s skew), aud = the instance id, iss = agentarea; tool = params.name; " +
		"every agentarea/* _meta key equal to its claim; run the tool only after all pass. Failures are answered on " +
		"the HTTP layer with a JSON-RPC error and the request id: 401/-32001 missing credential or token, bad " +
		"signature, expired, wrong aud or iss; 403/-32003 a valid token that does not match the call or an unknown " +
		"major protocol; 400/-32602 a malformed context value; 400/-32600 tools/call in a batch"
	ruleTimeout = "AgentArea tool context, \"Timeout\": a call waits tool_timeout_seconds (default 300 s, 1 to 1800 s), " +
		"progress notifications included, then fails as \"MCP tool call timed out: no result within <n> s\" and " +
		"the server is sent notifications/cancelled"
	ruleResultsText = "AgentArea tool context, \"Results\": text over 8000 characters is offloaded; the model sees a pointer and a preview"
	ruleResultsSC   = "AgentArea tool context, \"Results\": structuredContent over 16000 characters of JSON is left out " +
		"of the tool.result event (structured_content_dropped: true); the model does not read structuredContent"
	ruleResultsImg = "AgentArea tool context, \"Results\": PNG, JPEG, GIF and WebP up to 5 MB, at most 8 per result"
	ruleImageData  = "MCP, ImageContent: data is the base64-encoded image, of the type mimeType declares"
	ruleIsError    = "MCP, \"Tool results\": a tool reports its own failure as a result with isError: true (not a JSON-RPC error); its content says what failed"
	// ruleIsErrorAgentArea is ruleIsError on a call that speaks AgentArea.
	ruleIsErrorAgentArea = ruleIsError + "; AgentArea tool context, \"Results\": isError: true is a failed tool.result, its content the error the model reads"
	ruleRelay            = "AgentArea tool context, \"Progress\": at most one tool.progress per 0.5 s per call is relayed, " +
		"notifications in between are dropped; a completion (progress >= total) is always relayed"
	ruleReplayed = "AgentArea tool context, \"Idempotency\": a retry sends the same task_id, tool_call_id, idempotency key " +
		"and arguments with a new token; _meta[\"agentarea/replayed\"]: true says the server answered from what it stored"
	ruleRounds = "MCP 2026-07-28 multi-round calls: a result with resultType input_required asks the client for input; " +
		"the client sends the same call again with its inputResponses and the requestState"
	ruleJSONRPC = "MCP over Streamable HTTP: a request is answered with its result or a JSON-RPC error carrying its id"
)

// mustOf is what the server or the client must do about a warning the
// table's meaning alone does not say.
var mustOf = map[WarningCode]string{
	WarnInputRequiredEmpty: "the server must give, in an input_required result, the input requests the client is to answer " +
		"or a requestState to send back (a state alone asks the client to retry later)",
	WarnInputCapabilityUndeclared: "the server must ask only for what the client declared (io.modelcontextprotocol/clientCapabilities, or initialize's capabilities), " +
		"and answer -32021 MissingRequiredClientCapability (HTTP 400) with the capabilities it requires otherwise; " +
		"a client that can answer must declare elicitation, sampling or roots on every request",
	WarnInputResponsesMismatch: "the client must answer each input request under its key in inputResponses, and send no answer " +
		"to a request the server did not make",
	WarnRequestStateNotReturned: "the client must send the requestState of the server's input_required result back unchanged " +
		"with its inputResponses, in the same call (same tool and arguments)",
}
