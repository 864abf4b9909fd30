package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// TestTaskView: t shows one row a task (its state from the feed's task
// events, else from its calls; calls without a task grouped by their
// source), enter opens the task's calls alone, esc goes back to the tasks
// and t to every call.
func TestTaskView(t *testing.T) {
	store := fixtureStore()
	store.Apply(model.Event{Time: at(56000), Source: model.SourceFeed, SourceName: "task-6f1c", Kind: model.KindTaskStatus,
		TaskID: taskB, EventType: "task.failed", Message: "Task failed", Reason: "budget exceeded"})
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	send(m, keyMsgs("t")...)
	if m.mode != modeTasks || len(m.tasks.index.rows) != 3 {
		t.Fatalf("t: mode %v, %d task rows, want the task view with 3", m.mode, len(m.tasks.index.rows))
	}
	view := ansi.Strip(m.View())
	for _, want := range []string{"running   6f1c2a9e", "failed    9d4a7e21", "Task failed: budget exceeded", "idle      —",
		"crawl_site +1", "3/5", "4/4"} {
		if !strings.Contains(view, want) {
			t.Errorf("the task view lacks %q:\n%s", want, view)
		}
	}
	send(m, keyMsgs("g", "j", "<enter>")...) // task B
	if m.mode != modeTable || len(m.table.rows) != 4 {
		t.Fatalf("enter: mode %v with %d rows, want task B's 4 calls", m.mode, len(m.table.rows))
	}
	for _, c := range m.table.rows {
		if c.TaskID != taskB {
			t.Errorf("task B's calls include %s of task %s", c.ID, c.TaskID)
		}
	}
	if !strings.Contains(m.View(), "task 9d4a7e21") {
		t.Errorf("the footer does not say which task:\n%s", m.View())
	}
	send(m, keyMsgs("<enter>", "<esc>")...) // a call's detail, and back to the task's calls
	if m.mode != modeTable || len(m.table.rows) != 4 {
		t.Fatalf("esc from the detail: mode %v, %d rows", m.mode, len(m.table.rows))
	}
	send(m, keyMsgs("<esc>")...)
	if m.mode != modeTasks || m.tasks.selected().id != taskB {
		t.Fatalf("esc: mode %v, want the task view on task B", m.mode)
	}
	send(m, keyMsgs("t")...)
	if m.mode != modeTable || len(m.table.rows) != 10 {
		t.Fatalf("t: mode %v with %d rows, want every call", m.mode, len(m.table.rows))
	}
}

// TestTaskStates reads today's dotted task events and the older names.
func TestTaskStates(t *testing.T) {
	for ev, want := range map[string]string{
		"task.started": taskRunning, "task.completed": taskCompleted, "task.failed": taskFailed,
		"task.cancelled": taskCancelled, "task.awaiting_follow_up": taskWaiting, "task.continued": taskRunning,
		"TaskCompleted": taskCompleted, "task_failed": taskFailed, "workflow_completed": taskCompleted,
	} {
		if got := taskState(ev); got != want {
			t.Errorf("%s: %s, want %s", ev, got, want)
		}
	}
}

// TestManyTasksAtAGlance: 200 tasks each with a running call: the task
// view has a row for every one, the tool of agent-facing names whole, and
// the header counts 200 running.
func TestManyTasksAtAGlance(t *testing.T) {
	store := model.NewStore(model.Options{})
	for i := range 200 {
		task := "task-" + itoa(1000+i)
		ev := model.Event{Time: at(i), Source: model.SourceFeed, SourceName: "feed:" + task, Kind: model.KindToolCall,
			TaskID: task, ToolCallID: "call_1", Tool: "mcp__srv__tool_" + itoa(i)}
		store.Apply(ev)
		ev.Kind, ev.Progress, ev.Total, ev.Message = model.KindToolProgress, 5, fptr(10), "halfway"
		store.Apply(ev)
	}
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 160, Height: 45})
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "200 running") || !strings.Contains(view, "tool_199 srv") {
		t.Errorf("the calls table:\n%s", view)
	}
	send(m, keyMsgs("t")...)
	if len(m.tasks.index.rows) != 200 {
		t.Fatalf("%d task rows, want 200", len(m.tasks.index.rows))
	}
	send(m, keyMsgs("G")...)
	view = ansi.Strip(m.View())
	if !strings.Contains(view, "tool_199") || !strings.Contains(view, "5/10 halfway") || !strings.Contains(view, "200 running") {
		t.Errorf("the task view:\n%s", view)
	}
}
