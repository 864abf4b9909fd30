// Package feed watches AgentArea task feeds: the Server-Sent-Event stream of
// one task, read with r3labs/sse, decoded with the decoder package, and
// emitted as model events, reconnecting with Last-Event-ID and never showing
// an event twice.
package feed

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"toolscope/model"
)

// Config configures one task feed.
type Config struct {
	// URL of the task's live feed (.../tasks/{task_id}/events/stream).
	URL string
	// Name shown for the source (default: the first 8 characters of the
	// task id in the URL).
	Name string
	// APIKey is sent as "Authorization: Bearer <key>" (never logged).
	APIKey string
	// IncludeChunks asks for llm.call.chunk events; otherwise the request
	// carries include_chunks=false.
	IncludeChunks bool
	// MaxEventBytes is the largest event accepted (default 16 MiB).
	MaxEventBytes int
	// Backfill pages through the task's history endpoint before going live,
	// so a monitor started late still shows the calls already made.
	Backfill bool
	// MaxHistoryPages bounds the history pages read by Backfill (default
	// 1000: 100,000 events).
	MaxHistoryPages int
	// MaxBackoff caps the wait between reconnects (default 30 s).
	MaxBackoff time.Duration
	// GiveUpAfter ends the feed with an error once it has failed to
	// connect (or connected without receiving anything) for this long;
	// zero retries forever. Scripts need an end; a screen can wait.
	GiveUpAfter time.Duration
	// RelayInterval is the platform's relay rule the feed is checked
	// against (default 0.5 s). The demo, whose clock runs faster than
	// real time, compresses it by its speed.
	RelayInterval time.Duration
	// HTTPClient makes the requests (default: a client with no timeout;
	// a Timeout set here is ignored for the stream, which is long-lived).
	HTTPClient *http.Client
}

// Defaults.
const (
	defaultMaxEventBytes   = 16 << 20
	defaultMaxBackoff      = 30 * time.Second
	DefaultMaxHistoryPages = 1000
	// historyPageWait bounds the reading of one history page's body.
	historyPageWait = 2 * time.Minute
	// frameSlack is room in r3labs/sse's buffer beyond MaxEventBytes for the
	// frame's own lines (event:, data:, id:) around the JSON.
	frameSlack = 64 << 10
	// maxSeenIDs bounds de-duplication memory per feed (a reconnect replays
	// the recent past; a task rarely has this many events).
	maxSeenIDs = 1 << 17
	// historyPageSize is the history endpoint's largest page.
	historyPageSize = 100
	// maxRetryAfter bounds how long a server's Retry-After can pause a feed.
	maxRetryAfter = 5 * time.Minute
	// maxLastEventID: a longer id is not sent back (a full replay, which
	// de-duplication absorbs, is better than a request a server refuses).
	maxLastEventID = 1024
)

// connectTimeout bounds the wait for response headers: a server that
// accepts a connection and never answers is retried, not waited on (a feed
// server answers its headers at once; the status says so). A variable for
// tests.
var connectTimeout = 10 * time.Second

// FeedURL builds the live feed URL of one task. workspace may be empty for
// older servers, which take the workspace from the credential. api is the
// server's base URL, with or without a trailing /v1.
func FeedURL(api, workspace, agent, task string) string {
	base := strings.TrimRight(api, "/")
	base = strings.TrimSuffix(base, "/v1")
	p := url.PathEscape
	if workspace == "" {
		return fmt.Sprintf("%s/v1/agents/%s/tasks/%s/events/stream", base, p(agent), p(task))
	}
	return fmt.Sprintf("%s/v1/workspaces/%s/agents/%s/tasks/%s/events/stream", base, p(workspace), p(agent), p(task))
}

// target is what Run derives from a Config.
type target struct {
	stream  string // the URL subscribed to, with include_chunks
	history string // the history endpoint ("" when it cannot be derived)
	// historyDisplay is the history URL for messages (credentials redacted)
	historyDisplay string
	display        string // the URL for messages (credentials in it redacted)
	taskID         string
	name           string
}

// CheckURL says why rawURL cannot be a feed's URL (nil when it can), so a
// command can refuse it at start as a usage error.
func CheckURL(rawURL string) error {
	_, err := resolve(Config{URL: rawURL})
	return err
}

func resolve(cfg Config) (target, error) {
	if strings.TrimSpace(cfg.URL) == "" {
		return target{}, fmt.Errorf("feed: no URL")
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return target{}, fmt.Errorf("feed: bad URL %q: %v", cfg.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return target{}, fmt.Errorf("feed: URL %s: scheme must be http or https", displayURL(u))
	}
	if u.Host == "" {
		return target{}, fmt.Errorf("feed: URL %s has no host", displayURL(u))
	}
	t := target{display: displayURL(u), taskID: taskIDFromPath(u.Path)}

	// The URL is sent as given, only include_chunks is appended (sorting
	// the query with url.Values.Encode would rewrite what the user wrote).
	stream := *u
	if !cfg.IncludeChunks && !u.Query().Has("include_chunks") {
		stream.RawQuery = appendQuery(u.RawQuery, "include_chunks=false")
	}
	t.stream = stream.String()

	if strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/stream") {
		h := *u
		h.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/stream")
		h.RawPath = ""
		q := u.Query()
		q.Del("include_chunks")
		q.Del("page")
		q.Del("page_size")
		h.RawQuery = q.Encode()
		t.history = h.String()
		t.historyDisplay = displayURL(&h)
	}

	t.name = cfg.Name
	if t.name == "" {
		switch {
		case t.taskID != "":
			t.name = model.ShortID(t.taskID)
		default:
			t.name = u.Host
		}
	}
	return t, nil
}

func appendQuery(raw, kv string) string {
	if raw == "" {
		return kv
	}
	return raw + "&" + kv
}

// taskIDFromPath finds {task_id} in .../tasks/{task_id}/...
func taskIDFromPath(p string) string {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == "tasks" && segs[i+1] != "" {
			if id, err := url.PathUnescape(segs[i+1]); err == nil {
				return id
			}
			return segs[i+1]
		}
	}
	return ""
}

// displayURL is the URL as messages show it (model.RedactURL).
func displayURL(u *url.URL) string { return model.RedactURL(u) }
