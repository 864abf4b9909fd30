package decoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"toolscope/model"
)

// FeedOptions says where a task-feed frame came from.
type FeedOptions struct {
	SourceName string    // the feed's name (model.Event.SourceName)
	TaskID     string    // the task of the feed URL, used when the data has none
	Now        time.Time // time of frames without a timestamp (zero: time.Now())
}

// FeedFrame is one decoded task-feed frame (or history item).
type FeedFrame struct {
	// Event is what the frame says. Its Kind is empty when the frame carries
	// nothing to show (a heartbeat, an empty data field).
	Event model.Event
	// Warnings raised by the frame besides Event. They never carry an
	// event_id, so de-duplication keys on Event alone.
	Warnings []model.Event
	// Terminal: the task ended, the feed stops after this frame.
	Terminal bool
	// ServerError is the text of an `error` frame: the server's own account
	// of a stream failure.
	ServerError string
	// Timestamped: the event's time is the platform's timestamp, not the
	// time it was read (so gaps between events can be judged).
	Timestamped bool
}

// feedEnvelope is the frame's JSON: {"event_type","event_id","timestamp","data"}.
// Frames such as `connected` and `error` are flat (no envelope); their
// fields then sit beside these.
type feedEnvelope struct {
	EventType string          `json:"event_type"`
	EventID   feedString      `json:"event_id"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// DecodeFeedEvent decodes one SSE frame of a task feed: its `event:` name and
// its data. It never fails: bad input becomes a warning event.
func DecodeFeedEvent(eventName string, data []byte, o FeedOptions) FeedFrame {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return FeedFrame{} // the SSE rule: a frame with no data dispatches nothing
	}
	if normalizeFeedType(eventName) == feedHeartbeat {
		return FeedFrame{} // silence-breaker only, whatever its data
	}
	if fr, ok := decodeFeedEventFast(data, o); ok {
		return fr
	}
	return decodeFeedEventGeneral(eventName, data, o)
}

// decodeFeedEventFast decodes the common case in one pass: an envelope
// around a tool or task event. ok is false for anything else.
func decodeFeedEventFast(data []byte, o FeedOptions) (fr FeedFrame, ok bool) {
	var fast feedFastFrame
	if err := json.Unmarshal(data, &fast); err != nil || fast.Data == nil || fast.EventType == "" ||
		len(fast.Data.Nested) != 0 || len(fast.Data.OriginalData) != 0 {
		return FeedFrame{}, false
	}
	norm := normalizeFeedType(fast.EventType)
	if _, tool := feedToolKinds[norm]; !tool && !isFeedTaskType(norm) {
		return FeedFrame{}, false
	}
	return buildFeedFrame(fast.EventType, string(fast.EventID), fast.Timestamp, nil, fast.Data, feedData{}, nil, o), true
}

// decodeFeedEventGeneral decodes any frame: envelopes, flat frames, nested
// data, fields of unexpected types.
func decodeFeedEventGeneral(eventName string, data []byte, o FeedOptions) FeedFrame {
	var env feedEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return FeedFrame{Event: feedMalformed(eventName, data, err, o)}
	}
	body := json.RawMessage(data)
	eventType := eventName
	if len(env.Data) > 0 && env.Data[0] == '{' && (env.EventType != "" || env.EventID != "") {
		body = env.Data
		if env.EventType != "" {
			eventType = env.EventType
		}
	} else {
		env.EventID = "" // a flat frame's fields are data, not an envelope
		if eventType == "" {
			eventType = env.EventType
		}
	}
	if eventType == "" {
		eventType = "message" // the SSE default event name
	}
	return decodeFeed(eventType, string(env.EventID), env.Timestamp, body, feedData{}, o)
}

// historyItem is one event of the history endpoint's page.
type historyItem struct {
	ID          feedString      `json:"id"`
	TaskID      feedString      `json:"task_id"`
	ExecutionID feedString      `json:"execution_id"`
	Timestamp   string          `json:"timestamp"`
	EventType   string          `json:"event_type"`
	Message     string          `json:"message"`
	Metadata    json.RawMessage `json:"metadata"`
	Data        json.RawMessage `json:"data"`
}

// DecodeHistoryEvent decodes one item of the history endpoint
// ({id, task_id, agent_id, execution_id, timestamp, event_type, message,
// metadata}): metadata holds the event's data, as the live feed sends it.
func DecodeHistoryEvent(item []byte, o FeedOptions) FeedFrame {
	var h historyItem
	if err := json.Unmarshal(item, &h); err != nil {
		return FeedFrame{Event: feedMalformed("history", item, err, o)}
	}
	body := h.Metadata
	if len(body) == 0 || body[0] != '{' {
		body = h.Data
	}
	if len(body) == 0 || body[0] != '{' {
		body = json.RawMessage("{}")
	}
	outer := feedData{TaskID: h.TaskID, ExecutionID: h.ExecutionID, Message: h.Message}
	eventType := h.EventType
	if eventType == "" {
		eventType = "message"
	}
	return decodeFeed(eventType, string(h.ID), h.Timestamp, body, outer, o)
}

// feedFastFrame decodes an envelope and its data object in one pass.
type feedFastFrame struct {
	EventType string     `json:"event_type"`
	EventID   feedString `json:"event_id"`
	Timestamp string     `json:"timestamp"`
	Data      *feedData  `json:"data"`
}

// decodeFeed turns an event's type and data object into a frame. fallback
// holds fields known from outside the data (a history item's columns).
func decodeFeed(eventType, eventID, timestamp string, body json.RawMessage, fallback feedData, o FeedOptions) FeedFrame {
	var d feedData
	var warnings []model.Event
	if err := decodeFeedData(body, &d); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return FeedFrame{Event: feedMalformed(eventType, body, err, o)}
		}
		// A field of an unexpected type: keep what parsed, say what did not.
		warnings = append(warnings, feedWarning(o, model.WarnUnexpectedFieldType,
			fmt.Sprintf("%s event: field %s is JSON %s, expected %s", eventType, te.Field, te.Value, te.Type)))
	}
	return buildFeedFrame(eventType, eventID, timestamp, body, &d, fallback, warnings, o)
}

// decodeFeedData decodes a data object, flattening the nested `data` and
// `original_data` objects older servers send (the outer fields win).
func decodeFeedData(body json.RawMessage, d *feedData) error {
	err := json.Unmarshal(body, d)
	if err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return err
		}
	}
	nested, orig := d.Nested, d.OriginalData
	if !isJSONObject(nested) && !isJSONObject(orig) {
		return err
	}
	var merged feedData
	if isJSONObject(orig) {
		_ = json.Unmarshal(orig, &merged)
	}
	if isJSONObject(nested) {
		_ = json.Unmarshal(nested, &merged)
	}
	outerErr := json.Unmarshal(body, &merged)
	*d = merged
	return outerErr
}

func isJSONObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

func feedWarning(o FeedOptions, code model.WarningCode, msg string) model.Event {
	return model.Event{Time: feedTime("", o.Now), Source: model.SourceFeed, SourceName: o.SourceName,
		Kind: model.KindWarning, TaskID: o.TaskID, Code: string(code), Message: msg}
}

// feedMalformed is the warning for a frame whose JSON does not parse; it
// quotes the start of the frame so the user can see what came.
func feedMalformed(eventType string, data []byte, err error, o FeedOptions) model.Event {
	const quote = 120
	q := data
	if len(q) > quote {
		q = q[:quote]
	}
	name := eventType
	if name == "" {
		name = "message"
	}
	msg := fmt.Sprintf("%s frame (%d bytes) is not valid JSON: %v; it starts %q", name, len(data), err, q)
	return feedWarning(o, model.WarnMalformedEvent, msg)
}
