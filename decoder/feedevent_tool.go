package decoder

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"toolscope/model"
)

// fillToolEvent sets the tool.call, tool.progress or tool.result fields.
func fillToolEvent(ev *model.Event, d *feedData, failed bool) {
	ev.ToolCallID = firstFeedString(d.ToolCallID, d.CallID)
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
		ev.Relayed = true // a feed only carries what the platform relayed
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
			if json.Unmarshal(d.Result, &text) == nil {
				n, preview := feedRuneCountPreview(text, previewChars)
				ev.TextChars = n
				ev.TextPreview = preview
				ev.Offloaded = n > MaxTextChars
			}
		} else if string(d.Result) != "null" {
			_, ev.TextPreview = feedRuneCountPreview(string(d.Result), previewChars)
		}
	}
	if sc := d.StructuredContent; len(sc) > 0 && string(sc) != "null" {
		ev.StructuredContentBytes = len(sc)
		if len(sc) <= maxKeptStructuredBytes {
			ev.StructuredContent = sc
		}
	}
	ev.StructuredContentDropped = d.StructuredContentDropped
	if len(d.Images) > 0 {
		ev.Images = make([]model.Image, len(d.Images))
		for i, im := range d.Images {
			ev.Images[i] = model.Image{ID: string(im.ID), MimeType: im.MimeType, Size: im.Size,
				Problem: feedImageProblem(i, im)}
		}
	}
}

// feedImageProblem checks an image a result carries against the platform's
// limits: PNG, JPEG, GIF or WebP, up to 5 MB, at most 8 per result.
func feedImageProblem(i int, im feedImage) string {
	var problems []string
	switch strings.ToLower(strings.TrimSpace(im.MimeType)) {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
	default:
		problems = append(problems, "type not supported")
	}
	if im.Size > MaxImageBytes {
		problems = append(problems, "over 5 MB")
	}
	if i >= MaxImages {
		problems = append(problems, fmt.Sprintf("over the limit of %d images", MaxImages))
	}
	return strings.Join(problems, "; ")
}

// feedRuneCountPreview counts the characters of s and keeps its first n.
func feedRuneCountPreview(s string, n int) (int, string) {
	count, cut := 0, len(s)
	for i := range s {
		if count == n {
			cut = i
		}
		count++
	}
	if count <= n {
		cut = len(s)
	}
	return count, s[:cut]
}

// structuredNotDropped warns of a relayed tool.result whose
// structured_content is over the platform's limit but was not dropped.
func structuredNotDropped(ev *model.Event, d *feedData) (model.Event, bool) {
	sc := d.StructuredContent
	if ev.Kind != model.KindToolResult || d.StructuredContentDropped || len(sc) <= MaxStructuredChars || string(sc) == "null" {
		return model.Event{}, false
	}
	n := utf8.RuneCount(compactJSON(sc))
	if n <= MaxStructuredChars {
		return model.Event{}, false
	}
	return model.Event{Time: ev.Time, Source: ev.Source, SourceName: ev.SourceName, Kind: model.KindWarning,
		TaskID: ev.TaskID, ToolCallID: ev.ToolCallID, Tool: ev.Tool, IdempotencyKey: ev.IdempotencyKey,
		Code:    string(model.WarnStructuredContentNotDropped),
		Message: fmt.Sprintf("structured_content is %d characters of JSON but was relayed: over %d the platform leaves it out (structured_content_dropped)", n, MaxStructuredChars)}, true
}
