package feedevent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"toolscope/model"
)

// Options says where a task-feed frame came from.
type Options struct {
	SourceName string    // the feed's name (model.Event.SourceName)
	TaskID     string    // the task of the feed URL, used when the data has none
	Now        time.Time // time of frames without a timestamp (zero: time.Now())
}

// Frame is one decoded task-feed frame (or history item).
type Frame struct {
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

// Decode decodes one SSE frame of a task feed: its `event:` name and
// its data. It never fails: bad input becomes a warning event.
func Decode(eventName string, data []byte, o Options) Frame {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return Frame{} // the SSE rule: a frame with no data dispatches nothing
	}
	if normalizeFeedType(eventName) == feedHeartbeat {
		return Frame{} // silence-breaker only, whatever its data
	}
	var env feedEnvelope
	if err := jsonv1.Unmarshal(data, &env); err != nil {
		return Frame{Event: feedMalformed(eventName, data, err, o)}
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

// DecodeHistory decodes one item of the history endpoint
// ({id, task_id, agent_id, execution_id, timestamp, event_type, message,
// metadata}): metadata holds the event's data, as the live feed sends it.
func DecodeHistory(item []byte, o Options) Frame {
	var h historyItem
	if err := jsonv1.Unmarshal(item, &h); err != nil {
		return Frame{Event: feedMalformed("history", item, err, o)}
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

// decodeFeed turns an event's type and data object into a frame. fallback
// holds fields known from outside the data (a history item's columns).
func decodeFeed(eventType, eventID, timestamp string, body json.RawMessage, fallback feedData, o Options) Frame {
	var d feedData
	var warnings []model.Event
	if err := decodeFeedData(body, &d); err != nil {
		var te *jsonv1.UnmarshalTypeError
		if !errors.As(err, &te) {
			return Frame{Event: feedMalformed(eventType, body, err, o)}
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
	err := jsonv1.Unmarshal(body, d)
	if err != nil {
		var te *jsonv1.UnmarshalTypeError
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
		_ = jsonv1.Unmarshal(orig, &merged)
	}
	if isJSONObject(nested) {
		_ = jsonv1.Unmarshal(nested, &merged)
	}
	outerErr := jsonv1.Unmarshal(body, &merged)
	*d = merged
	return outerErr
}

func isJSONObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

func feedWarning(o Options, code model.WarningCode, msg string) model.Event {
	return model.Event{Time: feedTime("", o.Now), Source: model.SourceFeed, SourceName: o.SourceName,
		Kind: model.KindWarning, TaskID: o.TaskID, Code: string(code), Message: msg}
}

// feedMalformed is the warning for a frame whose JSON does not parse; it
// quotes the start of the frame so the user can see what came.
func feedMalformed(eventType string, data []byte, err error, o Options) model.Event {
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
