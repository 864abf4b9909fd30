package model

// WarningCode is the stable code of a warning event. Every code is a
// constant below with a row in WarningCodes; the table of
// docs/warning-codes.md is generated from it
// (go test ./model -run TestWarningCodesDoc -update).
type WarningCode string

// WarningInfo says what a warning code means, which contract rule it
// enforces, and the call flag it raises besides FlagWarning (0 for none).
type WarningInfo struct {
	Code    WarningCode
	Meaning string // markdown, one line
	Rule    string // markdown, one line
	Flag    CallFlag
}

// The codes, in the docs table's order.
const (
	WarnMetaClaimMismatch           WarningCode = "meta_claim_mismatch"
	WarnMetaWithoutToken            WarningCode = "meta_without_token"
	WarnClaimMissingFromMeta        WarningCode = "claim_missing_from_meta"
	WarnProtocolMissing             WarningCode = "protocol_missing"
	WarnTokenTyp                    WarningCode = "token_typ"
	WarnTokenLifetime               WarningCode = "token_lifetime"
	WarnAudUnchecked                WarningCode = "aud_unchecked"
	WarnIdempotencyKeyFormat        WarningCode = "idempotency_key_format"
	WarnMetadataTooLarge            WarningCode = "metadata_too_large"
	WarnEndUserIDLength             WarningCode = "end_user_id_length"
	WarnMetaKeyMissing              WarningCode = "meta_key_missing"
	WarnClaimMissing                WarningCode = "claim_missing"
	WarnJTINotUUID                  WarningCode = "jti_not_uuid"
	WarnProgressTokenMissing        WarningCode = "progress_token_missing"
	WarnContextOnOtherMethod        WarningCode = "context_on_other_method"
	WarnSessionOnContextCall        WarningCode = "session_on_context_call"
	WarnToolNameQualified           WarningCode = "tool_name_qualified"
	WarnRetryArgumentsChanged       WarningCode = "retry_arguments_changed"
	WarnTokenReused                 WarningCode = "token_reused"
	WarnEndUserIDChanged            WarningCode = "end_user_id_changed"
	WarnContextHeaderStripped       WarningCode = "context_header_stripped"
	WarnCredentialHeaderStripped    WarningCode = "credential_header_stripped"
	WarnCredentialIsSecret          WarningCode = "credential_is_secret"
	WarnToolsCallInBatch            WarningCode = "tools_call_in_batch"
	WarnCallTimeout                 WarningCode = "call_timeout"
	WarnProgressNotIncreasing       WarningCode = "progress_not_increasing"
	WarnProgressUnmatched           WarningCode = "progress_unmatched"
	WarnMalformedProgress           WarningCode = "malformed_progress"
	WarnProgressRelayedTooSoon      WarningCode = "progress_relayed_too_soon"
	WarnStructuredContentDropped    WarningCode = "structured_content_dropped"
	WarnStructuredContentNearLimit  WarningCode = "structured_content_near_limit"
	WarnStructuredContentNotDropped WarningCode = "structured_content_not_dropped"
	WarnTextOffloaded               WarningCode = "text_offloaded"
	WarnContentEmpty                WarningCode = "content_empty"
	WarnImageTooLarge               WarningCode = "image_too_large"
	WarnImageTypeUnsupported        WarningCode = "image_type_unsupported"
	WarnImageMimeMismatch           WarningCode = "image_mime_mismatch"
	WarnImageDataInvalid            WarningCode = "image_data_invalid"
	WarnTooManyImages               WarningCode = "too_many_images"
	WarnResultAfterEnd              WarningCode = "result_after_end"
	WarnResultMalformed             WarningCode = "result_malformed"
	WarnResultTypeUnknown           WarningCode = "result_type_unknown"
	WarnStreamEndedWithoutResult    WarningCode = "stream_ended_without_result"
	WarnInputRequiredEmpty          WarningCode = "input_required_empty"
	WarnInputCapabilityUndeclared   WarningCode = "input_capability_undeclared"
	WarnInputResponsesMismatch      WarningCode = "input_responses_mismatch"
	WarnRequestStateNotReturned     WarningCode = "request_state_not_returned"
	WarnMCPHeaderMismatch           WarningCode = "mcp_header_mismatch"
	WarnMCPHeaderMissing            WarningCode = "mcp_header_missing"
	WarnMCPProtocolVersionUnknown   WarningCode = "mcp_protocol_version_unknown"
	WarnDuplicateContextKey         WarningCode = "duplicate_context_key"
	WarnInvalidContextKey           WarningCode = "invalid_context_key"
	WarnPIIInContext                WarningCode = "pii_in_context"
	WarnHostRejected                WarningCode = "host_rejected"
	WarnListenNotLoopback           WarningCode = "listen_not_loopback"
	WarnUpstreamHostKept            WarningCode = "upstream_host_kept"
	WarnAmbiguousJSON               WarningCode = "ambiguous_json"
	WarnEnforceUnverifiedLargeBody  WarningCode = "enforce_unverified_large_body"
	WarnMalformedRequest            WarningCode = "malformed_request"
	WarnMalformedCall               WarningCode = "malformed_call"
	WarnMalformedResponse           WarningCode = "malformed_response"
	WarnParseSkipped                WarningCode = "parse_skipped"
	WarnParseLagging                WarningCode = "parse_lagging"
	WarnTapServerError              WarningCode = "tap_server_error"
	WarnUnexpectedFieldType         WarningCode = "unexpected_field_type"
	WarnMalformedEvent              WarningCode = "malformed_event"
	WarnFeedError                   WarningCode = "feed_error"
	WarnBackfillFailed              WarningCode = "backfill_failed"
	WarnMalformedLine               WarningCode = "malformed_line"
	WarnWriteFailed                 WarningCode = "write_failed"
	WarnOutputOverflow              WarningCode = "output_overflow"
	WarnOutputStuck                 WarningCode = "output_stuck"
	WarnDemoFailed                  WarningCode = "demo_failed"
	WarnOTLPExportFailed            WarningCode = "otlp_export_failed"
	WarnStdoutClosed                WarningCode = "stdout_closed"
	WarnHistoryEventTooLarge        WarningCode = "history_event_too_large"
	WarnHistoryTruncated            WarningCode = "history_truncated"
	WarnCallAbandoned               WarningCode = "call_abandoned"
	WarnRequestBufferFull           WarningCode = "request_buffer_full"
	WarnRequestBodyTimeout          WarningCode = "request_body_timeout"
	WarnLineTooLong                 WarningCode = "line_too_long"
)

// Rules named in several rows.
const (
	ruleTokenTable  = "tool context, token table"
	ruleInputs      = "tool context, setting the inputs"
	ruleResults     = "tool context, results"
	ruleProgress    = "MCP progress"
	ruleMCPResults  = "MCP results"
	ruleMCPHeaders  = "MCP 2026-07-28 headers"
	ruleMCPRounds   = "MCP 2026-07-28 multi-round calls"
	ruleSoat        = "SOAT tool context, validation and security"
	ruleHopByHop    = "HTTP hop-by-hop rule (RFC 9110 §7.6.1)"
	ruleToolscope   = "toolscope"
	ruleFeed        = "feed"
	ruleMemoryLimit = "toolscope (memory ceiling)"
)

// WarningCodes is the one table of warning codes.
var WarningCodes = []WarningInfo{
	{WarnMetaClaimMismatch, "an `agentarea/*` key of `_meta` differs from its claim (403/-32003)", "tool context, verification step 3", 0},
	{WarnMetaWithoutToken, "`agentarea/*` keys without an `X-AgentArea-Context` token", "tool context: never one without the other", 0},
	{WarnClaimMissingFromMeta, "a context claim has no `_meta` key", "tool context: every key has an equal claim and no more", 0},
	{WarnProtocolMissing, "no `protocol` in the token or `_meta`", ruleTokenTable, 0},
	{WarnTokenTyp, "the token's `typ` is not JWT", ruleTokenTable, 0},
	{WarnTokenLifetime, "`exp != iat + 300`", ruleTokenTable, 0},
	{WarnAudUnchecked, "no `--instance-id` to compare `aud` with", ruleTokenTable, 0},
	{WarnIdempotencyKeyFormat, "idempotency key is not `task_id:tool_call_id`", "tool context, `_meta` keys", 0},
	{WarnMetadataTooLarge, "`metadata` over 4096 bytes, measured as the compact UTF-8 JSON sent (`<`, `&` count one byte)", ruleInputs, FlagLimit},
	{WarnEndUserIDLength, "`end_user_id` outside 1..256 characters", ruleInputs, 0},
	{WarnMetaKeyMissing, "a `tools/call` with context lacks `agentarea/task_id`, `tool_call_id`, `workspace_id` or `idempotency_key`", "tool context: keys sent always", 0},
	{WarnClaimMissing, "the token lacks `task_id`, `tool_call_id`, `workspace_id`, `idempotency_key` or `jti`", "tool context, token claims", 0},
	{WarnJTINotUUID, "the token's `jti` is not a UUID", "tool context, token claims: a random UUID per token", 0},
	{WarnProgressTokenMissing, "a `tools/call` with context has no `progressToken`", "tool context: set on every call", 0},
	{WarnContextOnOtherMethod, "a token or `agentarea/*` keys on `tools/list` or any method but `tools/call` (exchange warning)", "tool context: when context is sent", 0},
	{WarnSessionOnContextCall, "`Mcp-Session-Id` on a `tools/call` that carries AgentArea context", "tool context, transport: a new connection per call, no session reused", 0},
	{WarnToolNameQualified, "`params.name` is the agent-facing `mcp__<server>__<tool>` name", "tool context: the server receives the raw name", 0},
	{WarnRetryArgumentsChanged, "a call with an idempotency key seen before carries other arguments (compared by value)", "tool context, idempotency: a retry sends the same arguments", 0},
	{WarnTokenReused, "the same token (`jti`) sent again: a replay, the platform mints one per call", "tool context, token: `jti` random per token", 0},
	{WarnEndUserIDChanged, "`end_user_id` differs (or appears, or goes) between calls of one task", "tool context: fixed when the task is created", 0},
	{WarnContextHeaderStripped, "the client names the token or a SOAT context header in `Connection`: the proxy removes it, the server never receives it, and the verdict (or the SOAT bag) is what the server gets", ruleHopByHop, 0},
	{WarnCredentialHeaderStripped, "the client names the static credential in `Connection`: the proxy removes it and the server never receives it", ruleHopByHop, 0},
	{WarnCredentialIsSecret, "the static credential (`Authorization` or `--credential-header`) is the context secret", "tool context, security notes: the credential and `context_secret` are different values", 0},
	{WarnToolsCallInBatch, "`tools/call` inside a JSON-RPC batch (400/-32600)", "tool context, transport", 0},
	{WarnCallTimeout, "no result within `--timeout`; the platform gives up", "tool context, timeout", 0},
	{WarnProgressNotIncreasing, "progress did not increase", ruleProgress, 0},
	{WarnProgressUnmatched, "a progress token no open call has", ruleProgress, 0},
	{WarnMalformedProgress, "a progress notification that cannot be read", ruleProgress, 0},
	{WarnProgressRelayedTooSoon, "on a feed, a `tool.progress` relayed under 0.5 s after the previous one of the call (a completion, and whole-second timestamps, are not judged)", "tool context, progress rate", 0},
	{WarnStructuredContentDropped, "structured content over 16000 characters of JSON: the platform drops it", ruleResults, 0},
	{WarnStructuredContentNearLimit, "structured content within 16000 characters as compact JSON but over it as Python writes JSON: the platform may drop it", ruleResults, 0},
	{WarnStructuredContentNotDropped, "on a feed, `structured_content` over 16000 characters relayed without `structured_content_dropped`", ruleResults, 0},
	{WarnTextOffloaded, "text over 8000 characters is offloaded", ruleResults, 0},
	{WarnContentEmpty, "empty content (the model reads structured content)", ruleResults, 0},
	{WarnImageTooLarge, "an image over 5 MB, which the platform refuses", ruleResults, FlagLimit},
	{WarnImageTypeUnsupported, "an image that is not PNG, JPEG, GIF or WebP, which the platform refuses", ruleResults, FlagLimit},
	{WarnImageMimeMismatch, "image bytes of another type than declared (PNG, JPEG, GIF and WebP bytes are recognised; other bytes under another type are not judged), which the platform also refuses", "MCP results: an image's `mimeType` is its data's", FlagLimit},
	{WarnImageDataInvalid, "image data that is not base64, which the platform also refuses", "MCP results: an image's `data` is base64", FlagLimit},
	{WarnTooManyImages, "more than 8 images in one result: the platform keeps 8", ruleResults, FlagLimit},
	{WarnResultAfterEnd, "a result after the call ended", ruleMCPResults, 0},
	{WarnResultMalformed, "unreadable result fields", ruleMCPResults, 0},
	{WarnResultTypeUnknown, "unknown `resultType`", ruleMCPResults, 0},
	{WarnStreamEndedWithoutResult, "a stream closed before the result", ruleMCPResults, 0},
	{WarnInputRequiredEmpty, "an `input_required` result with neither `inputRequests` nor `requestState`: the client has nothing to answer and no state to send back", ruleMCPRounds, 0},
	{WarnInputCapabilityUndeclared, "the server asks for an elicitation, a sampling or the roots while the client's capabilities (the request's `io.modelcontextprotocol/clientCapabilities`, else its session's `initialize`) lack `elicitation`, `sampling` or `roots` (the server should answer -32021 MissingRequiredClientCapability)", ruleMCPRounds, 0},
	{WarnInputResponsesMismatch, "a later round's `inputResponses` keys differ from the `inputRequests` keys of the round it continues: a request not answered, or an answer to no request", ruleMCPRounds, 0},
	{WarnRequestStateNotReturned, "a later round (`inputResponses` answering a waiting call's requests, same tool, arguments and session or connection) without the `requestState` the server gave", ruleMCPRounds, 0},
	{WarnMCPHeaderMismatch, "`MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` differs from the body", ruleMCPHeaders, 0},
	{WarnMCPHeaderMissing, "a 2026-07-28 request lacks `MCP-Protocol-Version`, `Mcp-Method` or (on `tools/call`) `Mcp-Name`", ruleMCPHeaders, 0},
	{WarnMCPProtocolVersionUnknown, "an `MCP-Protocol-Version` toolscope does not know", ruleMCPHeaders, 0},
	{WarnDuplicateContextKey, "two values or spellings of one SOAT key (the first to arrive is kept)", ruleSoat, 0},
	{WarnInvalidContextKey, "a SOAT key no header name may hold", ruleSoat, 0},
	{WarnPIIInContext, "a SOAT external id that looks like an e-mail or phone number", ruleSoat, FlagPII},
	{WarnHostRejected, "with `--rewrite-host`, a non-loopback `Host` on a loopback listener, answered 403 by the tap", "MCP transport security (DNS rebinding)", 0},
	{WarnListenNotLoopback, "the tap listens beyond loopback", ruleToolscope, 0},
	{WarnUpstreamHostKept, "the `--upstream` is named by DNS and the tap sends the client's `Host`: add `--rewrite-host` if it serves by name", ruleToolscope, 0},
	{WarnAmbiguousJSON, "a request body servers could read differently: a key twice or in another case, trailing data, a BOM, invalid UTF-8, a lone surrogate, a non-identity `Content-Encoding` or non-UTF-8 charset, the token sent twice (refused under `--enforce`, flagged otherwise)", "toolscope: a parse differential is a bypass", 0},
	{WarnEnforceUnverifiedLargeBody, "`--enforce` refused (413) a body over `--max-parse-bytes` it could not verify", ruleToolscope, 0},
	{WarnMalformedRequest, "a request body the tap could not read as JSON-RPC", ruleToolscope, 0},
	{WarnMalformedCall, "`tools/call` params the tap could not read", ruleToolscope, 0},
	{WarnMalformedResponse, "a message from the server the tap could not read", ruleToolscope, 0},
	{WarnParseSkipped, "a body or SSE event over the parse limit: forwarded, not parsed", ruleToolscope, 0},
	{WarnParseLagging, "the tap's observation fell behind the traffic: everything was forwarded, some of it not parsed (exchanges, stdio messages or a stream's bytes)", ruleToolscope, 0},
	{WarnTapServerError, "what net/http's server in the tap reported (a recovered panic, a failed accept): its first line, at most one a second", ruleToolscope, 0},
	{WarnUnexpectedFieldType, "a feed event field of an unexpected JSON type: the rest is kept", ruleToolscope, 0},
	{WarnMalformedEvent, "a feed frame that is not JSON", ruleFeed, 0},
	{WarnFeedError, "the server's `error` frame", ruleFeed, 0},
	{WarnBackfillFailed, "the history could not be read", ruleFeed, 0},
	{WarnMalformedLine, "a replay line that is not an event", ruleToolscope, 0},
	{WarnWriteFailed, "a writer that failed, or a recording that stopped rather than write through something planted at its name ([recordings](commands/README.md#recordings)); monitoring goes on", ruleToolscope, 0},
	{WarnOutputOverflow, "an output (stdout, `--record`) could not keep up: the number of lines it lost, written where they were lost (its queue holds 8,192 lines or 64 MiB); the traffic never waits on an output", ruleToolscope, 0},
	{WarnOutputStuck, "an output's write has not completed for 5 s: said once on stderr and in the other outputs; its lines are dropped and counted until the write returns", ruleToolscope, 0},
	{WarnDemoFailed, "the demo's own failure", ruleToolscope, 0},
	{WarnStdoutClosed, "a stdio tap's client stopped reading its standard output: the server's messages are parsed but reach no one", ruleToolscope, 0},
	{WarnOTLPExportFailed, "spans could not be sent to the `--otlp` collector (once per outage; monitoring goes on)", ruleToolscope, 0},
	{WarnHistoryEventTooLarge, "a history item over `--max-event-bytes` skipped", ruleMemoryLimit, 0},
	{WarnHistoryTruncated, "history pages past `--max-history-pages` not read", ruleMemoryLimit, 0},
	{WarnCallAbandoned, "a running call ended by toolscope to stay bounded: past `--max-running-calls`, twice its timeout, or an hour idle", ruleMemoryLimit, 0},
	{WarnRequestBufferFull, "`--enforce` refused a request body: the tap's buffer (`--max-buffered-bytes`) is full (503)", ruleMemoryLimit, 0},
	{WarnRequestBodyTimeout, "`--enforce` refused a request body that took over 30 s (408)", ruleMemoryLimit, 0},
	{WarnLineTooLong, "a replayed line over 64 MiB, skipped", ruleToolscope, 0},
}

// warningFlags maps a code to the flag it raises, built once from the table.
var warningFlags = func() map[string]CallFlag {
	m := make(map[string]CallFlag, len(WarningCodes))
	for _, w := range WarningCodes {
		if w.Flag != 0 {
			m[string(w.Code)] = w.Flag
		}
	}
	return m
}()

// warningFlag is the call flag a warning code raises besides FlagWarning:
// 0 for a code that raises none, or one the table does not hold (a
// recording from another version).
func warningFlag(code string) CallFlag { return warningFlags[code] }
