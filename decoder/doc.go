// Package decoder holds toolscope's knowledge of the wire contracts as pure
// functions with no I/O (token.LoadSecrets, which reads --secret-file, is
// the one exception). Each job has one place:
//
//   - decoder/jsonrpc reads a body, a response or a stdio line once, on
//     jsontext, into typed messages (envelope, tools/call params, _meta,
//     progress, cancellations, a CallToolResult's summary), and finds in
//     the same pass what servers could read differently (Body.Strict).
//   - decoder/token decodes and verifies the context token step by step.
//   - decoder/soat reads SOAT context headers; decoder/sse parses event
//     streams; decoder/feedevent decodes the task feed's frames.
//   - decoder (this package) judges: Judge.Request for a request (HTTP or
//     stdio, and decode --call), Judge.Feed for a feed's tool events,
//     SummarizeResult for a result; the rules across calls, agent-facing
//     names, and what AgentArea sends (PlatformMeta, PlatformHeaders).
//
// Choices the contracts leave open, made here once:
//
//   - Token verification reports steps in the contract's order: signature
//     (HS256 only, iss, aud, exp and iat with 30 s of skew, no older than
//     10 minutes), tool, meta, run. A configured credential header and a
//     batch are checked first, as "credential" and "batch" steps, only when
//     they apply. The answer is that of the first failing step. All steps
//     are evaluated even after a failure, so a report shows everything that
//     is wrong.
//   - Time rules follow the common JWT libraries: expired when
//     now >= exp + 30 s, too early when iat > now + 30 s, too old when
//     now - iat > 10 min + 30 s.
//   - An unreadable token is a bad token (401/-32001); "malformed context
//     value" (400/-32602) is a context value of the wrong type or form, in
//     _meta or in the token's claims (metadata not an object, protocol not
//     "<major>[.<minor>]", ids not strings).
//   - Agent-facing names longer than 64 characters keep their first 55 and
//     end with "_" and the first 8 hex digits of SHA-256 of the whole name.
//     Cyrillic follows the ICAO passport transliteration (ь and ъ dropped);
//     in a non-ASCII name only [a-z0-9] survive, every other run becomes "_".
//   - structuredContent is dropped by its compact JSON length in
//     characters; a warning says when Python's default json.dumps form
//     (spaces, non-ASCII escaped) would cross the limit.
//   - 5 MB is 5 MiB (5,242,880 bytes) of decoded image data.
package decoder
