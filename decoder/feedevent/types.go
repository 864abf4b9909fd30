package feedevent

import (
	"strings"

	"toolscope/model"
)

// Feed event types, after normalization (lower case, no '.', '_' or '-'),
// so "task.completed", "task_completed" and "TaskCompleted" are one name.
const (
	feedConnected = "connected"
	feedHeartbeat = "heartbeat"
	feedError     = "error"
)

var feedToolKinds = map[string]model.Kind{
	"toolcall":          model.KindToolCall,
	"toolcallstarted":   model.KindToolCall,
	"toolprogress":      model.KindToolProgress,
	"toolcallprogress":  model.KindToolProgress,
	"toolresult":        model.KindToolResult,
	"toolcallcompleted": model.KindToolResult,
	"toolcallfailed":    model.KindToolResult,
}

// feedTerminal lists the events that end a task (task.completed only when
// its execution_status is not "waiting").
var feedTerminal = map[string]bool{
	"taskcompleted":     true,
	"taskfailed":        true,
	"taskcancelled":     true,
	"taskcanceled":      true,
	"workflowcompleted": true,
	"workflowfailed":    true,
	"workflowcancelled": true,
	"workflowcanceled":  true,
}

// normalizeFeedType lowers an event type's ASCII letters and drops its
// separators.
func normalizeFeedType(t string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '.' || r == '_' || r == '-':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, t)
}

// isFeedTaskType says whether a normalized type is a task.status event.
func isFeedTaskType(norm string) bool {
	return strings.HasPrefix(norm, "task") || feedTerminal[norm]
}
