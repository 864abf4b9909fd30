package tap

import (
	"sync/atomic"

	"toolscope/decoder"
)

// agentNames keeps the agent-facing names (mcp__<server>__<tool>) of
// the tools called lately: a tap's calls name the same few tools, and
// decoder.QualifiedName, a pure function of the instance name and the
// tool, would build two strings for each call.
type agentNames struct {
	slots [agentNameSlots]atomic.Pointer[agentNameEntry]
}

type agentNameEntry struct{ tool, name string }

const (
	agentNameSlots = 16
	maxMemoTool    = 128 // a longer name is built each time, not kept
)

// name is decoder.QualifiedName(instance, tool); instance is the tap's own,
// the same on every call.
func (a *agentNames) name(instance, tool string) string {
	if len(tool) > maxMemoTool {
		return decoder.QualifiedName(instance, tool)
	}
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(tool); i++ {
		h = (h ^ uint32(tool[i])) * 16777619
	}
	slot := &a.slots[h%agentNameSlots]
	if e := slot.Load(); e != nil && e.tool == tool {
		return e.name
	}
	name := decoder.QualifiedName(instance, tool)
	slot.Store(&agentNameEntry{tool: tool, name: name})
	return name
}
