package probe

import (
	"fmt"
	"strings"

	"toolscope/decoder"
	"toolscope/model"
)

// measureLimits reads the valid call's result as the platform would: text
// over 8000 characters offloaded, structured content over 16000 dropped, at
// most 8 images of 5 MB, and the tool's agent-facing name within 64.
func measureLimits(p *prober, r reply) (bool, string) {
	m, _ := r.response()
	s, ws := decoder.SummarizeResult(m.Summary, true)
	pass := !s.Offloaded && !s.StructuredContentDropped && len(s.Images) <= model.MaxImages
	parts := []string{
		fmt.Sprintf("text %d chars (offloaded over %d)", s.TextChars, model.MaxTextChars),
		fmt.Sprintf("structured content %d chars (dropped over %d)", s.StructuredContentChars, model.MaxStructuredChars),
		fmt.Sprintf("%d images (at most %d of 5 MB)", len(s.Images), model.MaxImages),
	}
	for _, img := range s.Images {
		if img.Size > model.MaxImageBytes {
			pass = false
		}
	}
	// mcp__<server>__<tool>: what the tool's label leaves for the server's.
	room := decoder.MaxAgentNameLen - len(model.AgentName("", "")) - len(decoder.ToolLabel(p.cfg.Tool))
	if room < 1 {
		pass = false
		parts = append(parts, fmt.Sprintf("the agent-facing name mcp__<server>__%s is over %d characters: it is cut", decoder.ToolLabel(p.cfg.Tool), decoder.MaxAgentNameLen))
	} else {
		parts = append(parts, fmt.Sprintf("mcp__<server>__%s leaves %d characters for <server>", decoder.ToolLabel(p.cfg.Tool), room))
	}
	for _, w := range ws {
		pass = false
		parts = append(parts, w.String())
	}
	return pass, model.Clip(strings.Join(parts, "; "), maxShownBytes)
}

// measureProgress replays the valid call's progress notifications through
// the platform's relay rule (one per 0.5 s, the completion always) and the
// MCP rule that progress increases.
func measureProgress(_ *prober, r reply) (bool, string) {
	if len(r.progress) == 0 {
		return true, "no progress notifications (nothing to relay)"
	}
	var relay decoder.RelaySimulator
	var check decoder.ProgressChecker
	relayed := 0
	var problems []string
	for _, tp := range r.progress {
		if relay.Relay(tp.at, tp.p) {
			relayed++
		}
		if w := check.Check(tp.p); w != nil {
			problems = append(problems, w.String())
		}
	}
	msg := fmt.Sprintf("%d progress notifications, %d relayed under the 0.5 s rule", len(r.progress), relayed)
	if len(problems) > 0 {
		return false, model.Clip(msg+"; "+strings.Join(problems, "; "), maxShownBytes)
	}
	return true, msg
}
