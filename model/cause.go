package model

import (
	"strconv"
	"time"
)

// Cause is why the call failed, was cancelled, came late or had its token
// rejected, in the most specific words toolscope has: the token's reason
// (or first failed step) before the server's or the platform's error (a
// rejected call's error is the platform's generic "… rejected the
// credentials"), the platform's account of a cancellation before the
// tap's, then how late the result came. "" for a call running or ended
// well. The screen's rows and the MCP server's list_calls say it.
func (c *Call) Cause(now time.Time) string {
	if ctx := c.Context; ctx != nil && ctx.Verdict == VerdictRejected && c.Status != StatusOK {
		if why := tokenFailure(ctx); why != "" {
			return why
		}
	}
	a := c.LastAttempt()
	switch c.Status {
	case StatusError:
		if a == nil {
			return "error"
		}
		return resultError(&a.Result)
	case StatusCancelled:
		switch {
		case a == nil:
			return "cancelled"
		case a.Result.Error != "":
			return Sanitize(a.Result.Error)
		case a.Cancelled != "":
			return Sanitize(a.Cancelled)
		}
		return "cancelled"
	case StatusNeedsInput:
		return waitCause(c)
	case StatusLate:
		s := "result after " + FormatDuration(c.Elapsed(now))
		if c.TimeoutMS > 0 {
			s += ", over the " + FormatTimeout(c.TimeoutMS) + " timeout"
		}
		return s
	}
	return ""
}

// tokenFailure is the rejected token's reason, else its first failed step.
func tokenFailure(ctx *Context) string {
	if ctx.Reason != "" {
		return Sanitize(ctx.Reason)
	}
	for _, s := range ctx.Steps {
		if !s.Passed {
			if s.Detail == "" {
				return Sanitize(s.Name) + " failed"
			}
			return Sanitize(s.Name) + ": " + Sanitize(s.Detail)
		}
	}
	return ""
}

// resultError is what an error result said: its error, the denial, the
// HTTP status or JSON-RPC code, the start of its text.
func resultError(r *Result) string {
	switch {
	case r.Error != "":
		return Sanitize(r.Error)
	case r.Denied != "":
		return "denied by " + Sanitize(r.Denied)
	case r.HTTPStatus >= 400:
		return "HTTP " + strconv.Itoa(r.HTTPStatus)
	case r.RPCCode != 0:
		return "JSON-RPC error " + strconv.Itoa(r.RPCCode)
	case r.TextPreview != "":
		return "isError: " + Sanitize(r.TextPreview)
	}
	return "isError"
}
