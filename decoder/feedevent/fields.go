package feedevent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// feedString reads a JSON string, or the text of a number (ids are UUIDs
// on current servers, integers on some).
type feedString string

func (s *feedString) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 {
		// No escapes: the text is the value, byte for byte. Ids holding
		// invalid UTF-8 stay apart (a decoder would make each U+FFFD).
		*s = feedString(b[1 : len(b)-1])
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		return jsonv1.Unmarshal(b, (*string)(s))
	}
	if string(b) != "null" {
		*s = feedString(b)
	}
	return nil
}

// feedData is the flat data object of a feed event (every kind's fields).
type feedData struct {
	TaskID      feedString `json:"task_id"`
	ExecutionID feedString `json:"execution_id"`
	Timestamp   string     `json:"timestamp"`
	Message     string     `json:"message"`
	Reason      string     `json:"reason"`

	ToolName       string          `json:"tool_name"`
	Name           string          `json:"name"`
	ToolCallID     feedString      `json:"tool_call_id"`
	CallID         feedString      `json:"call_id"`
	IdempotencyKey string          `json:"idempotency_key"`
	Arguments      json.RawMessage `json:"arguments"`
	Attempt        int             `json:"attempt"`

	Progress *float64 `json:"progress"`
	Total    *float64 `json:"total"`

	Success                  *bool           `json:"success"`
	Result                   json.RawMessage `json:"result"`
	Error                    json.RawMessage `json:"error"`
	ExecutionTime            json.RawMessage `json:"execution_time"`
	Replayed                 bool            `json:"replayed"`
	Images                   []feedImage     `json:"images"`
	StructuredContent        json.RawMessage `json:"structured_content"`
	StructuredContentDropped bool            `json:"structured_content_dropped"`
	DeniedByPolicy           bool            `json:"denied_by_policy"`
	DeniedByHuman            bool            `json:"denied_by_human"`

	ExecutionStatus string `json:"execution_status"`

	// Older servers nest the event's fields; current ones flatten them.
	Nested       json.RawMessage `json:"data"`
	OriginalData json.RawMessage `json:"original_data"`
}

type feedImage struct {
	ID       feedString `json:"id"`
	MimeType string     `json:"mime_type"`
	Size     int        `json:"size"`
}

// feedErrorText reads an error given as a string, as {"message": ...}, or
// as anything else (kept as its JSON text).
func feedErrorText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "false" {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if jsonv1.Unmarshal(raw, &s) == nil {
			return s
		}
	case '{':
		var o struct {
			Message string `json:"message"`
			Error   string `json:"error"`
		}
		if jsonv1.Unmarshal(raw, &o) == nil {
			if o.Message != "" {
				return o.Message
			}
			if o.Error != "" {
				return o.Error
			}
		}
	}
	return string(raw)
}

// feedDurationMS reads execution_time: seconds as a number (the platform
// measures with time.time() differences; inferred), or a Go/Python-style
// duration string ("1.5s", "250ms", "0.25").
func feedDurationMS(raw json.RawMessage) int64 {
	if len(raw) == 0 || string(raw) == "null" {
		return 0
	}
	var secs float64
	if raw[0] == '"' {
		var s string
		if jsonv1.Unmarshal(raw, &s) != nil {
			return 0
		}
		s = strings.TrimSpace(s)
		if d, err := time.ParseDuration(s); err == nil {
			return d.Milliseconds()
		}
		if _, err := fmt.Sscanf(s, "%g", &secs); err != nil {
			return 0
		}
	} else if jsonv1.Unmarshal(raw, &secs) != nil {
		return 0
	}
	if secs <= 0 || secs > 1e9 {
		return 0
	}
	return int64(secs*1000 + 0.5)
}

// feedTime parses an event timestamp: RFC 3339, or ISO 8601 without a zone
// (Python's isoformat of a naive UTC time). Unparseable or absent: now.
func feedTime(ts string, now time.Time) time.Time {
	if t, ok := feedTimestamp(ts); ok {
		return t
	}
	if now.IsZero() {
		return time.Now().UTC()
	}
	return now.UTC()
}

// feedTimestamp parses an event timestamp; ok is false when there is none
// or it cannot be read.
func feedTimestamp(ts string) (time.Time, bool) {
	if ts == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.UTC(), true
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, ts); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
