package model

import (
	"strconv"
	"time"
)

// The platform's limits a call is measured against (the tool context
// contract's Results, Progress and Timeout rules; docs/warning-codes.md).
// The decoder checks them, the screen and the MCP server's explain_call say
// them: one place.
const (
	// MaxTextChars: text over this many characters is offloaded; the model
	// sees a pointer and a preview.
	MaxTextChars = 8000
	// MaxStructuredChars: structuredContent over this many characters of
	// JSON is left out of the tool.result event.
	MaxStructuredChars = 16000
	// MaxImageBytes: an image over 5 MB (decoded) is refused.
	MaxImageBytes = 5 * 1024 * 1024
	// MaxImages: at most this many images per result.
	MaxImages = 8
	// RelayInterval: at most one relayed progress event per call in this
	// interval; a completion (progress >= total) is always relayed.
	RelayInterval = 500 * time.Millisecond
	// DefaultTimeout is the instance's tool timeout unless set (1 to 1800 s).
	DefaultTimeout = 300 * time.Second
)

// What an event keeps of a result however large it is: a preview of its
// text, and its structured content up to a size (one result must not bloat
// the store or a recording).
const (
	PreviewChars           = 2000
	MaxKeptStructuredBytes = 64 << 10
)

// What the screen's detail and explain_call say of the same things.
const (
	SaysValid      = "runs the tool: every step passes"
	SaysUnverified = "decoded, not verified: no secret (TOOLSCOPE_CONTEXT_SECRET or --secret-file)"
	SaysAbsent     = "no X-AgentArea-Context header on this call"
	SaysOffloaded  = "offloaded: the model sees a pointer and a preview"
	SaysReplayed   = "answered from the idempotency store, not run again"
	SaysDropped    = "dropped by the platform"
	SaysLate       = "late (after the timeout)"
	SaysRelayRule  = "the 0.5 s rule"
)

// RequiredAnswer is the answer the contract makes a server give a rejected
// token: "HTTP 401 · JSON-RPC -32001" ("" when the context is not rejected).
func RequiredAnswer(ctx *Context) string {
	if ctx == nil || ctx.Verdict != VerdictRejected || ctx.HTTPStatus == 0 {
		return ""
	}
	s := "HTTP " + strconv.Itoa(ctx.HTTPStatus)
	if ctx.RPCCode != 0 {
		s += " · JSON-RPC " + strconv.Itoa(ctx.RPCCode)
	}
	return s
}
