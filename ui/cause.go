package ui

import (
	"strconv"
	"time"

	"toolscope/model"
)

// Why a call did not end well, in the most specific words toolscope has:
// the token's failed verification step before the server's or the
// platform's error (a rejected call's error is the platform's generic
// "… rejected the credentials"), then the cancel reason, then how late the
// result came. The row shows its head, the status line all of it.

// callCause is why the call failed, was cancelled, came late or had its
// token rejected; "" for a call that is running or ended well.
func callCause(c *model.Call, now time.Time) string {
	if ctx := c.Context; ctx != nil && ctx.Verdict == model.VerdictRejected && c.Status != model.StatusOK {
		if why := tokenFailure(ctx); why != "" {
			return why
		}
	}
	a := c.LastAttempt()
	switch c.Status {
	case model.StatusError:
		if a == nil {
			return "error"
		}
		return resultError(&a.Result)
	case model.StatusCancelled:
		switch {
		case a == nil:
			return "cancelled"
		case a.Result.Error != "":
			// The platform's account ("MCP tool call timed out: no
			// result within 5 s") says more than a tap's "client
			// disconnected", the cancellation it saw.
			return model.Sanitize(a.Result.Error)
		case a.Cancelled != "":
			return model.Sanitize(a.Cancelled)
		}
		return "cancelled"
	case model.StatusLate:
		s := "result after " + formatDuration(c.Elapsed(now))
		if c.TimeoutMS > 0 {
			s += ", over the " + formatTimeout(c.TimeoutMS) + " timeout"
		}
		return s
	}
	return ""
}

// tokenFailure is the rejected token's reason, else its first failed step.
func tokenFailure(ctx *model.Context) string {
	if ctx.Reason != "" {
		return model.Sanitize(ctx.Reason)
	}
	for _, s := range ctx.Steps {
		if !s.Passed {
			if s.Detail == "" {
				return model.Sanitize(s.Name) + " failed"
			}
			return model.Sanitize(s.Name) + ": " + model.Sanitize(s.Detail)
		}
	}
	return ""
}

// resultError is what an error result said: its error, the denial, the
// HTTP status or JSON-RPC code, the start of its text.
func resultError(r *model.Result) string {
	switch {
	case r.Error != "":
		return model.Sanitize(r.Error)
	case r.Denied != "":
		return "denied by " + model.Sanitize(r.Denied)
	case r.HTTPStatus >= 400:
		return "HTTP " + strconv.Itoa(r.HTTPStatus)
	case r.RPCCode != 0:
		return "JSON-RPC error " + strconv.Itoa(r.RPCCode)
	case r.TextPreview != "":
		return "isError: " + model.Sanitize(r.TextPreview)
	}
	return "isError"
}

// statusGlyph is a status in one cell: the table's status column below
// glyphWidth, the status line and the task view (`?` explains them).
func statusGlyph(s model.Status, now time.Time) string {
	switch s {
	case model.StatusOK:
		return "✓"
	case model.StatusError:
		return "✕"
	case model.StatusCancelled:
		return "⊘"
	case model.StatusLate:
		return "!"
	case model.StatusRunning:
		return runningGlyph(now)
	}
	return "?"
}

// turning is a one-cell spinner, for where the three-cell one does not fit:
// ASCII, which every font has (◐◓◑◒ are missing from common ones).
var turning = []string{"|", "/", "-", "\\"}

// runningGlyph is "running" in one cell: a spinner that turns with the clock.
func runningGlyph(now time.Time) string {
	n := int64(len(turning))
	return turning[(now.UnixNano()/int64(spin.FPS)%n+n)%n]
}
