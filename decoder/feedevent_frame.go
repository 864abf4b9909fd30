package decoder

import (
	"encoding/json"
	"strings"

	"toolscope/model"
)

// buildFeedFrame makes the frame of a decoded data object. body, the raw
// object, is only read for pass-through events.
func buildFeedFrame(eventType, eventID, timestamp string, body json.RawMessage, dp *feedData, fallback feedData, warnings []model.Event, o FeedOptions) FeedFrame {
	d := dp
	if d.TaskID == "" {
		d.TaskID = fallback.TaskID
	}
	if d.ExecutionID == "" {
		d.ExecutionID = fallback.ExecutionID
	}
	if d.Message == "" {
		d.Message = fallback.Message
	}
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
	frame := FeedFrame{Warnings: warnings, Timestamped: stamped}
	norm := normalizeFeedType(eventType)

	if kind, ok := feedToolKinds[norm]; ok {
		ev.Kind = kind
		fillToolEvent(&ev, d, norm == "toolcallfailed")
		if w, ok := structuredNotDropped(&ev, d); ok {
			frame.Warnings = append(frame.Warnings, w)
		}
		frame.Event = ev
		return frame
	}
	switch {
	case norm == feedConnected:
		ev.Kind = model.KindSourceStatus
		ev.State = model.StateConnected
		ev.Detail = d.Message
		if d.ExecutionID != "" {
			ev.Detail = strings.TrimSpace(ev.Detail + " (execution " + string(d.ExecutionID) + ")")
		}
	case norm == feedError:
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
		frame.ServerError = msg
	case isFeedTaskType(norm):
		ev.Kind = model.KindTaskStatus
		ev.EventType = eventType
		ev.Message = d.Message
		ev.Reason = d.Reason
		if ev.Reason == "" {
			ev.Reason = feedErrorText(d.Error)
		}
		frame.Terminal = feedTerminal[norm] && !(norm == "taskcompleted" && strings.EqualFold(d.ExecutionStatus, "waiting"))
	default:
		// approval.*, llm.*, artifacts and anything new: passed through.
		ev.Kind = model.KindEvent
		ev.EventType = eventType
		ev.Data = append(json.RawMessage(nil), body...)
		ev.ToolCallID = firstFeedString(d.ToolCallID, d.CallID)
		ev.Tool = d.ToolName
	}
	frame.Event = ev
	return frame
}
