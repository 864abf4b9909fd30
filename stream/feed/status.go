package feed

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"toolscope/model"
)

// statusError is an HTTP answer other than 200 from a feed or its history.
type statusError struct {
	URL    string // redacted for display
	Status int
	Body   string // start of the answer, sanitized
	// RetryAfter is the server's Retry-After (429, 503), zero when absent.
	RetryAfter time.Duration
}

func (e *statusError) Error() string {
	msg := fmt.Sprintf("feed %s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	if hint := statusHint(e.Status); hint != "" {
		msg += " (" + hint + ")"
	}
	return msg
}

// Fatal says whether retrying cannot help: the credential is wrong, the
// caller may not see the task, or the task does not exist.
func (e *statusError) Fatal() bool {
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

func statusHint(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "check AGENTAREA_API_KEY"
	case http.StatusForbidden:
		return "the credential may not read this workspace: API keys work only in the workspace that issued them"
	case http.StatusNotFound:
		return "no such task: check the workspace, agent and task ids"
	}
	return ""
}

// newStatusError reads the start of a failed answer (for the message) and
// closes its body.
func newStatusError(display string, resp *http.Response) *statusError {
	defer resp.Body.Close()
	// A body that never ends (a stalled proxy) must not hold the feed.
	stop := time.AfterFunc(statusBodyWait, func() { resp.Body.Close() })
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	stop.Stop()
	body := ""
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "text/html" {
		body = strings.Join(strings.Fields(string(b)), " ")
		if len(body) > 200 {
			body = body[:200] + "…"
		}
		body = model.Sanitize(body)
	}
	return &statusError{URL: display, Status: resp.StatusCode, Body: body, RetryAfter: retryAfter(resp.Header.Get("Retry-After"))}
}

// retryAfter reads a Retry-After header given in seconds or as an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// statusBodyWait bounds the wait for the start of a refusal's body.
const statusBodyWait = 2 * time.Second

// notEventStream is a 200 answer that is not an event stream (a login page,
// a proxy's error page): retried, and said so.
type notEventStream struct{ contentType string }

func (e notEventStream) Error() string {
	return fmt.Sprintf("the answer is not an event stream (Content-Type %q)", e.contentType)
}
