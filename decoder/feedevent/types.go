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

// feedKnownTypes maps the spellings servers use to their normalized form,
// so the common names cost a map lookup rather than an allocation.
var feedKnownTypes = func() map[string]string {
	m := map[string]string{}
	for _, t := range []string{"tool.call", "tool.progress", "tool.result", "ToolCallStarted", "ToolCallCompleted",
		"ToolCallFailed", "ToolCallProgress", "task.completed", "task.failed", "task.cancelled", "task.started",
		"task_completed", "task_failed", "task_cancelled", "workflow_completed", "workflow_failed",
		"task.awaiting_follow_up", "task.awaiting_continuation", "task.continued", "llm.call.chunk",
		"llm.call.started", "llm.call.completed", "llm.call.failed", "approval.request", "approval.response"} {
		m[t] = normalizeFeedTypeSlow(t)
	}
	return m
}()

// normalizeFeedType lowers an event type and drops its separators.
func normalizeFeedType(t string) string {
	if n, ok := feedKnownTypes[t]; ok {
		return n
	}
	return normalizeFeedTypeSlow(t)
}

func normalizeFeedTypeSlow(t string) string {
	clean := true
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '.' || c == '_' || c == '-' || (c >= 'A' && c <= 'Z') {
			clean = false
			break
		}
	}
	if clean {
		return t
	}
	b := make([]byte, 0, len(t))
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '.' || c == '_' || c == '-':
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// isFeedTaskType says whether a normalized type is a task.status event.
func isFeedTaskType(norm string) bool {
	return strings.HasPrefix(norm, "task") || feedTerminal[norm]
}
