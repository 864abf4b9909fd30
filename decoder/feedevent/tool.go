package feedevent

import (
	"cmp"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"toolscope/model"
)

// fillToolEvent sets the tool.call, tool.progress or tool.result fields.
func fillToolEvent(ev *model.Event, d *feedData, failed bool) {
	ev.ToolCallID = string(cmp.Or(d.ToolCallID, d.CallID))
	ev.Tool = d.ToolName // agent-facing on a feed (mcp__server__tool)
	if ev.Tool == "" {
		ev.Tool = d.Name
	}
	ev.IdempotencyKey = d.IdempotencyKey
	ev.Attempt = d.Attempt
	switch ev.Kind {
	case model.KindToolCall:
		if len(d.Arguments) > 0 && string(d.Arguments) != "null" {
			ev.Arguments = d.Arguments
		}
	case model.KindToolProgress:
		if d.Progress != nil {
			ev.Progress = *d.Progress
		}
		ev.Total = d.Total
		ev.Message = d.Message
		ev.Relayed = model.BoolRef(true) // a feed only carries what the platform relayed
	case model.KindToolResult:
		fillFeedResult(ev, d, failed)
	}
}

func fillFeedResult(ev *model.Event, d *feedData, failed bool) {
	ev.Error = feedErrorText(d.Error)
	ev.IsError = failed || (d.Success != nil && !*d.Success) || (d.Success == nil && ev.Error != "")
	switch {
	case d.DeniedByPolicy:
		ev.Denied = "policy"
	case d.DeniedByHuman:
		ev.Denied = "human"
	}
	if ev.Denied != "" {
		ev.IsError = true
	}
	ev.Replayed = d.Replayed
	ev.DurationMS = feedDurationMS(d.ExecutionTime)
	// The feed gives no status: the platform's words say what happened.
	ev.TimedOut = platformTimedOut(ev.Error)
	if ev.HTTPStatus == 0 {
		ev.HTTPStatus = rejectedStatus(ev.Error)
	}

	if len(d.Result) > 0 {
		if d.Result[0] == '"' {
			var text string
			if jsonv1.Unmarshal(d.Result, &text) == nil {
				ev.TextChars, ev.TextPreview = utf8.RuneCountInString(text), model.Prefix(text, model.PreviewChars)
			}
		} else if string(d.Result) != "null" {
			ev.TextPreview = model.Prefix(string(d.Result), model.PreviewChars)
		}
	}
	if sc := d.StructuredContent; len(sc) > 0 && string(sc) != "null" {
		ev.StructuredContentBytes = len(sc)
		if len(sc) <= model.MaxKeptStructuredBytes {
			ev.StructuredContent = sc
		}
	}
	ev.StructuredContentDropped = d.StructuredContentDropped
	if len(d.Images) > 0 {
		ev.Images = make([]model.Image, len(d.Images))
		for i, im := range d.Images {
			ev.Images[i] = model.Image{ID: string(im.ID), MimeType: im.MimeType, Size: im.Size}
		}
	}
}
