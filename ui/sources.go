package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// The header's second line: every source with its state, and every output
// that reports one (the OpenTelemetry export: `otlp ok`, `otlp failing:
// connection refused`). A source in trouble says why in a few words here;
// the lines under the calls and the event log say it whole.

// renderSourcesLine writes the sources on one line of width cells: full
// labels when they fit, then shorter ones, then a summary by kind and
// state ("2 taps ended   3 feeds connected"), problems first.
func renderSourcesLine(b *strings.Builder, c *common, width int) {
	st := &c.st
	if len(c.snap.Sources) == 0 {
		b.WriteString(fit(st.muted.on(" no source has reported yet"), width))
		return
	}
	var line string
	// Each label takes a dozen cells at least: past width/12 sources only
	// the summary can fit, and labels are not made for nothing each frame.
	full := 3
	if len(c.snap.Sources) > width/12 {
		full = -1
	}
	for detail := full; detail >= 0; detail-- {
		parts := make([]string, 0, len(c.snap.Sources))
		for _, s := range c.snap.Sources {
			parts = append(parts, c.sourceLabel(s, "", detail))
		}
		if line = " " + strings.Join(parts, st.muted.on("   ")); ansi.StringWidth(line) <= width {
			break
		}
	}
	for detail := 2; detail >= 0 && (line == "" || ansi.StringWidth(line) > width); detail-- {
		line = " " + strings.Join(c.sourceSummary(detail), st.muted.on("   "))
	}
	b.WriteString(fitColored(line, width))
}

// isOutput says whether a state is an output's (the OpenTelemetry export)
// rather than a source of events: its events have no source kind.
func isOutput(s model.SourceState) bool { return s.Source == "" }

// sourceSummary counts the sources by kind and state, problems first.
func (c *common) sourceSummary(detail int) []string {
	type group struct {
		kind, state string
		n           int
		first       model.SourceState
		speak       speakCounts // what its taps that saw calls speak (a tap's
		// calls may be counted by a feed that saw them first)
	}
	var groups []*group
	find := func(kind, state string) *group {
		for _, g := range groups {
			if g.kind == kind && g.state == state {
				return g
			}
		}
		g := &group{kind: kind, state: state}
		groups = append(groups, g)
		return g
	}
	for _, s := range c.snap.Sources {
		kind := s.Source
		if isOutput(s) {
			kind = "\x00" + s.Name // outputs are not counted together
		}
		g := find(kind, s.State)
		if g.n == 0 {
			g.first = s
		}
		g.n++
		if s.Source == model.SourceTap && (s.Calls > 0 || s.AgentArea || s.Soat) {
			g.speak.add(speaks(s))
		}
	}
	var problems, rest []string
	for _, g := range groups {
		label := c.sourceLabel(g.first, "", min(detail, 2))
		if g.n > 1 {
			label = c.sourceLabel(g.first, strconv.Itoa(g.n)+" "+model.Sanitize(g.kind)+"s", min(detail, 1))
			if detail >= 1 && len(g.speak) > 0 {
				label += c.st.muted.on(" · " + g.speak.String(g.n))
			}
		}
		if troubled(g.state) {
			problems = append(problems, label)
		} else {
			rest = append(rest, label)
		}
	}
	return append(problems, rest...)
}

// troubled says whether a state is one the user must hear about.
func troubled(state string) bool {
	return state == model.StateFailed || state == model.StateReconnecting || state == model.StateFailing
}

// reasonRoom is how much of a troubled source's reason the header shows
// at each detail level.
var reasonRoom = [...]int{0, 20, 32, 48}

// sourceLabel is one source: its state's dot, kind and name (or a group's
// name: "3 feeds"), its state and, when troubled, why in a few words;
// detail 3 adds its counts.
func (c *common) sourceLabel(s model.SourceState, group string, detail int) string {
	st := &c.st
	dot, state := st.muted.on("○"), model.Sanitize(s.State)
	switch s.State {
	case model.StateConnected:
		dot = st.ok.on("●")
		if isOutput(s) {
			state = st.ok.on("ok")
		}
	case model.StateConnecting:
		dot = st.warn.on("●")
	case model.StateReconnecting:
		dot = st.warn.on("●")
		state = st.warn.on("reconnecting " + strconv.Itoa(s.Attempts))
	case model.StateFailing:
		dot = st.err.on("●")
		state = st.err.on("failing")
	case model.StateFailed:
		dot = st.err.on("✕")
		state = st.err.on("failed")
	case model.StateEnded:
		state = st.muted.on("ended")
	case "":
		dot = st.accent.on("●")
	}
	name := model.Sanitize(s.Name)
	if name == "" {
		name = model.Sanitize(s.Source)
	}
	label := dot + " "
	switch {
	case group != "":
		name = group
	case !namesItsKind(s.Source, s.Name):
		label += st.muted.on(model.Sanitize(s.Source) + " ")
	}
	label += cut(name, 28)
	if state != "" {
		label += " " + state
	}
	if (s.State == model.StateFailing || s.State == model.StateFailed) && reasonRoom[detail] > 0 && s.Detail != "" {
		label += st.muted.on(": " + cut(shortReason(model.Sanitize(s.Detail)), reasonRoom[detail]))
	}
	if detail >= 2 && s.Source == model.SourceTap && s.Calls > 0 && group == "" {
		label += st.muted.on(" · " + speaks(s))
	}
	if detail == 3 && !isOutput(s) && group == "" {
		label += st.muted.on(" · " + formatCount(s.Events) + " ev · " + strconv.Itoa(s.Calls) + " calls")
	}
	return label
}

// sourceText is a source as the screen says it, each once: its kind and
// name ("feed orders"), or the name alone when it says its kind ("tap",
// "tap:soat-orders", "tap2"), or the kind alone when it has no name.
func sourceText(source, name string) string {
	switch {
	case name == "":
		return model.Sanitize(source)
	case namesItsKind(source, name):
		return model.Sanitize(name)
	}
	return model.Sanitize(source) + " " + model.Sanitize(name)
}

// namesItsKind says whether a source's name starts with its kind, alone or
// followed by a ':' or a number (as toolscope names its taps), or there is
// only one of them to say.
func namesItsKind(source, name string) bool {
	rest, ok := strings.CutPrefix(name, source)
	return source == "" || name == "" || ok && (rest == "" || rest[0] == ':' || rest[0] >= '0' && rest[0] <= '9')
}

// speaks says what a tap's calls carry: AgentArea context (a token or
// agentarea/* keys on some call), SOAT's context headers, or plain MCP.
func speaks(s model.SourceState) string {
	switch {
	case s.AgentArea && s.Soat:
		return "AgentArea + SOAT"
	case s.AgentArea:
		return "AgentArea"
	case s.Soat:
		return "SOAT"
	}
	return "plain MCP"
}

// speakCounts counts a group's taps by what they speak, in the order first
// seen.
type speakCounts []struct {
	what string
	n    int
}

func (sc *speakCounts) add(what string) {
	for i := range *sc {
		if (*sc)[i].what == what {
			(*sc)[i].n++
			return
		}
	}
	*sc = append(*sc, struct {
		what string
		n    int
	}{what, 1})
}

// String is what all n speak ("plain MCP"), or each with its count
// ("1 AgentArea, 2 plain MCP"): a tap that has carried no call yet is not
// counted, so one word is said only when it is every tap's.
func (sc speakCounts) String(n int) string {
	if len(sc) == 1 && sc[0].n == n {
		return sc[0].what
	}
	parts := make([]string, len(sc))
	for i, s := range sc {
		parts[i] = strconv.Itoa(s.n) + " " + s.what
	}
	return strings.Join(parts, ", ")
}

// shortReason is the end of an error chain ("… dial tcp 127.0.0.1:1:
// connect: connection refused" says "connection refused"): what failed
// last is what to fix.
func shortReason(detail string) string {
	if i := strings.LastIndex(detail, ": "); i >= 0 && len(detail)-i-2 >= 6 {
		return detail[i+2:]
	}
	return detail
}

// sourceProblems are the lines for every source in trouble (failed,
// failing, reconnecting), at most width cells each: its state, then its
// detail (HTTP status, URL, what to check), wrapped whole.
func (c *common) sourceProblems(width int) []string {
	st := &c.st
	var lines []string
	for _, s := range c.snap.Sources {
		var head string
		switch s.State {
		case model.StateFailed:
			head = st.err.on("✕ " + sourceText(s.Source, s.Name) + " failed")
		case model.StateFailing:
			head = st.err.on("● " + sourceText(s.Source, s.Name) + " failing")
		case model.StateReconnecting:
			head = st.warn.on("● " + sourceText(s.Source, s.Name) + " reconnecting (attempt " + strconv.Itoa(s.Attempts) + ")")
		default:
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, " "+fitColored(head, width-1))
		detail := model.Sanitize(s.Detail)
		if detail == "" {
			detail = "no reason was given"
		}
		for _, l := range wrapText(detail, width-3) {
			lines = append(lines, "   "+l)
		}
	}
	return lines
}
