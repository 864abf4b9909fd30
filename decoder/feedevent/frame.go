package feedevent

import (
	"cmp"
	"encoding/json"
	"strings"

	"toolscope/model"
)

// buildFeedFrame makes the frame of a decoded data object. body, the raw
// object, is only read for pass-through events.
func buildFeedFrame(eventType, eventID, timestamp string, body json.RawMessage, dp *feedData, fallback feedData, warnings []model.Event, o Options) Frame {
	d := dp
	fillFeedFallback(d, fallback)
	if timestamp == "" {
		timestamp = d.Timestamp
	}

	at, stamped := feedTimestamp(timestamp)
	if !stamped {
		at = feedTime("", o.Now)
	}
	ev := model.Event{
		Time:       at,
		Source:     model.SourceFeed,
		SourceName: o.SourceName,
		TaskID:     string(d.TaskID),
		EventID:    eventID,
	}
	if ev.TaskID == "" {
		ev.TaskID = o.TaskID
	}
	frame := Frame{Warnings: warnings, Timestamped: stamped}
	norm := normalizeFeedType(eventType)

	if kind, ok := feedToolKinds[norm]; ok {
		ev.Kind = kind
		fillToolEvent(&ev, d, norm == "toolcallfailed")
		frame.Event = ev
		return frame
	}
	switch {
	case norm == feedConnected:
		fillConnectedEvent(&ev, d)
		// A source's state is stamped when toolscope saw it: the server's
		// clock would put "connected" before the feed's own "connecting".
		ev.Time = feedTime("", o.Now)
	case norm == feedError:
		frame.ServerError = fillFeedErrorEvent(&ev, d)
	case isFeedTaskType(norm):
		frame.Terminal = fillTaskStatusEvent(&ev, eventType, norm, d)
	default:
		fillPassThroughEvent(&ev, eventType, body, d)
	}
	frame.Event = ev
	return frame
}

// fillFeedFallback takes the fields the data object lacks from fallback
// (a history item's columns).
func fillFeedFallback(d *feedData, fallback feedData) {
	if d.TaskID == "" {
		d.TaskID = fallback.TaskID
	}
	if d.ExecutionID == "" {
		d.ExecutionID = fallback.ExecutionID
	}
	if d.Message == "" {
		d.Message = fallback.Message
	}
}

// fillConnectedEvent sets the fields of a `connected` frame: the feed's
// status.
func fillConnectedEvent(ev *model.Event, d *feedData) {
	ev.Kind = model.KindSourceStatus
	ev.State = model.StateConnected
	ev.Detail = d.Message
	if d.ExecutionID != "" {
		ev.Detail = strings.TrimSpace(ev.Detail + " (execution " + string(d.ExecutionID) + ")")
	}
}

// fillFeedErrorEvent sets the warning of an `error` frame and returns the
// server's account of the failure.
func fillFeedErrorEvent(ev *model.Event, d *feedData) string {
	msg := feedErrorText(d.Error)
	if msg == "" {
		msg = d.Message
	}
	if msg == "" {
		msg = "the server reported a stream failure"
	}
	ev.Kind = model.KindWarning
	ev.Code = string(model.WarnFeedError)
	ev.Message = msg
	return msg
}

// fillTaskStatusEvent sets the fields of a task.* event and says whether it
// ends the task.
func fillTaskStatusEvent(ev *model.Event, eventType, norm string, d *feedData) (terminal bool) {
	ev.Kind = model.KindTaskStatus
	ev.EventType = eventType
	ev.Message = d.Message
	ev.Reason = d.Reason
	if ev.Reason == "" {
		ev.Reason = feedErrorText(d.Error)
	}
	return feedTerminal[norm] && !(norm == "taskcompleted" && strings.EqualFold(d.ExecutionStatus, "waiting"))
}

// fillPassThroughEvent sets the fields of an event toolscope does not read:
// approval.*, llm.*, artifacts and anything new are passed through.
func fillPassThroughEvent(ev *model.Event, eventType string, body json.RawMessage, d *feedData) {
	ev.Kind = model.KindEvent
	ev.EventType = eventType
	ev.Data = append(json.RawMessage(nil), body...)
	ev.ToolCallID = string(cmp.Or(d.ToolCallID, d.CallID))
	ev.Tool = d.ToolName
}
