package ui

import (
	"encoding/json"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
	"toolscope/model/userfiles"
)

// callJSON is what `y` copies: the call as one redacted JSON document.
type callJSON struct {
	ID             string            `json:"id"`
	TaskID         string            `json:"task_id,omitempty"`
	ToolCallID     string            `json:"tool_call_id,omitempty"`
	Tool           string            `json:"tool,omitempty"`
	AgentName      string            `json:"agent_name,omitempty"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	RequestID      string            `json:"request_id,omitempty"`
	Sources        []string          `json:"sources,omitempty"`
	Status         model.Status      `json:"status"`
	Started        *time.Time        `json:"started,omitempty"`
	Ended          *time.Time        `json:"ended,omitempty"`
	ElapsedMS      int64             `json:"elapsed_ms"`
	TimeoutMS      int64             `json:"timeout_ms,omitempty"`
	Flags          []string          `json:"flags,omitempty"`
	Arguments      json.RawMessage   `json:"arguments,omitempty"`
	Meta           map[string]any    `json:"meta,omitempty"`
	Context        *model.Context    `json:"context,omitempty"`
	SoatContext    map[string]string `json:"soat_context,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	Progress       progressJSON      `json:"progress"`
	Attempts       []attemptJSON     `json:"attempts,omitempty"`
	Warnings       []model.Event     `json:"warnings,omitempty"`
	Timeline       []model.Event     `json:"timeline,omitempty"`
}

type progressJSON struct {
	Progress      float64  `json:"progress"`
	Total         *float64 `json:"total"`
	Message       string   `json:"message,omitempty"`
	Sent          int      `json:"sent"`
	Relayed       int      `json:"relayed"`
	WouldRelay    int      `json:"would_relay,omitempty"`
	NotIncreasing int      `json:"not_increasing,omitempty"`
}

type attemptJSON struct {
	N          int            `json:"n"`
	SourceName string         `json:"source_name,omitempty"`
	Exchange   string         `json:"exchange,omitempty"`
	RequestID  string         `json:"request_id,omitempty"`
	Started    *time.Time     `json:"started,omitempty"`
	Ended      *time.Time     `json:"ended,omitempty"`
	Context    *model.Context `json:"context,omitempty"`
	Cancelled  string         `json:"cancelled,omitempty"`
	Result     *model.Result  `json:"result,omitempty"`
}

var flagNames = []struct {
	bit  model.CallFlag
	name string
}{
	{model.FlagRetried, "retried"}, {model.FlagReplayed, "replayed"}, {model.FlagImages, "images"},
	{model.FlagStructured, "structured"}, {model.FlagStructuredDropped, "structured_dropped"},
	{model.FlagOffloaded, "offloaded"}, {model.FlagLimit, "limit"}, {model.FlagRejected, "rejected"},
	{model.FlagLate, "late"}, {model.FlagPII, "pii"}, {model.FlagWarning, "warning"},
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// callToJSON renders the call as the store holds it: redacted by the hub
// before it reached the store (model.Redactor). Control characters are
// escaped.
func callToJSON(c *model.Call, now time.Time) ([]byte, error) {
	out := callJSON{
		ID: c.ID, TaskID: c.TaskID, ToolCallID: c.ToolCallID, Tool: c.Tool, AgentName: c.AgentName,
		IdempotencyKey: c.IdempotencyKey, RequestID: c.RequestID, Sources: c.Sources, Status: c.Status,
		Started: timePtr(c.Started), Ended: timePtr(c.Ended), ElapsedMS: c.Elapsed(now).Milliseconds(),
		TimeoutMS: c.TimeoutMS, Arguments: validJSON(c.Arguments), Meta: c.Meta, Context: c.Context,
		SoatContext: c.SoatContext,
	}
	for _, f := range flagNames {
		if c.Flags&f.bit != 0 {
			out.Flags = append(out.Flags, f.name)
		}
	}
	out.Headers = c.Headers
	p := &c.Progress
	out.Progress = progressJSON{Progress: p.Progress, Message: p.Message, Sent: c.SentCount(),
		Relayed: c.RelayedCount(), WouldRelay: p.WouldRelay, NotIncreasing: p.NotIncreasing}
	if p.HasTotal {
		t := p.Total
		out.Progress.Total = &t
	}
	for _, a := range c.Attempts {
		aj := attemptJSON{N: a.N, SourceName: a.SourceName, Exchange: a.Exchange, RequestID: a.RequestID,
			Started: timePtr(a.Started), Ended: timePtr(a.Ended), Context: a.Context, Cancelled: a.Cancelled}
		if a.HasResult {
			r := a.Result
			r.StructuredContent = validJSON(r.StructuredContent)
			aj.Result = &r
		}
		out.Attempts = append(out.Attempts, aj)
	}
	out.Warnings = c.Warnings
	for _, e := range c.Timeline {
		e.Arguments = validJSON(e.Arguments)
		e.StructuredContent = validJSON(e.StructuredContent)
		e.Data = validJSON(e.Data)
		out.Timeline = append(out.Timeline, e)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return model.TerminalSafeJSON(b), nil
}

// validJSON drops a raw value that is not JSON (it would fail the marshal).
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// clipboardSequence is the OSC 52 "set clipboard" sequence for payload,
// wrapped for tmux or screen when the screen runs inside one (they pass a
// bare OSC 52 on only when configured to).
func clipboardSequence(payload []byte, mode string) []byte {
	seq := osc52.New(string(payload))
	switch mode {
	case ClipboardTmux:
		// A bare copy reaches the clipboard with tmux's set-clipboard on;
		// the wrapped one with allow-passthrough on. Either may be off.
		return []byte(seq.String() + seq.Tmux().String())
	case ClipboardScreen:
		return []byte(seq.Screen().String())
	}
	return []byte(seq.String())
}

// Clipboard modes (Options.ClipboardMode).
const (
	ClipboardTmux   = "tmux"
	ClipboardScreen = "screen"
)

type copiedMsg struct {
	id    string
	bytes int
	path  string // where the JSON was saved ("" when not)
	clip  string // what can be said of the clipboard ("" when not sent)
	err   error
}

// copyFocused copies the call in focus (the table's selected row or the
// open detail's call; the log has none): to the terminal's clipboard with
// OSC 52, which a terminal may drop without a word, and to a file whose path
// the footer shows, so the copy is never lost.
func (m *Model) copyFocused() tea.Cmd {
	c := m.active().focused()
	if c == nil {
		return nil
	}
	if m.opts.Clipboard == nil && m.opts.CopyDir == "" {
		m.setFlash("no clipboard: not a terminal")
		return nil
	}
	b, err := callToJSON(c, m.now)
	if err != nil {
		m.setFlash("copy failed: " + err.Error())
		return nil
	}
	w, dir, mode, id := m.opts.Clipboard, m.opts.CopyDir, m.opts.ClipboardMode, c.ID
	name := c.ToolCallID // short, and what a user searches for
	if name == "" {
		name = c.ID
	}
	return func() tea.Msg {
		msg := copiedMsg{id: id, bytes: len(b)}
		if dir != "" {
			msg.path, msg.err = saveCopy(dir, name, b)
		}
		if w != nil {
			if _, err := w.Write(clipboardSequence(b, mode)); err != nil && msg.err == nil {
				msg.err = err
			} else if err == nil {
				msg.clip = clipboardNote(mode)
			}
		}
		return msg
	}
}

// saveCopy writes a copied call to a new file dir/<id>.json (<id>-2.json
// when taken, ...) that only the user can read, in a directory only the
// user can enter (userfiles: nothing planted there is written through).
func saveCopy(dir, id string, b []byte) (string, error) {
	f, path, err := userfiles.Create(dir, fileSafe(id), ".json")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// fileSafe turns a call id into a file name: letters, digits, . _ - only.
func fileSafe(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' ||
			('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 80 {
			break
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		name = "call"
	}
	return name
}

func (m *Model) onCopied(msg copiedMsg) {
	if msg.err != nil {
		m.setFlash("copy failed: " + msg.err.Error())
		return
	}
	// The file is the copy that is sure; the clipboard is said as far as
	// it is known (clipboardNote).
	var parts []string
	if msg.path != "" {
		parts = append(parts, "saved "+formatBytes(msg.bytes)+" JSON to "+model.Sanitize(msg.path))
	}
	if msg.clip != "" {
		parts = append(parts, msg.clip)
	}
	m.setFlash("y: " + strings.Join(parts, " · "))
}

var _ io.Writer = (*lockedFile)(nil)
