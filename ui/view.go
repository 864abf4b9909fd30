package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// tableTop is the screen line of the first table row (title, sources,
// column titles above it).
const tableTop = 3

func (m *Model) footerLines() int {
	if m.help.ShowAll && !m.filtering {
		return len(m.fullHelpLines())
	}
	return 1
}

// filterHelp explains the `/` syntax under the full key list.
var filterHelp = []string{
	"filter  tool:NAME task:ID source:tap|feed|NAME status:ok,error,running,cancelled,late",
	"flag:attempt,replayed,valid,rejected,unverified,no-token,img,sc,dropped,offloaded,limit,pii,warning",
	"-TERM negates; plain text matches ids, task, tool, progress message, arguments, result and error text, cancel reason and warnings; every term must match",
	"narrow screens: status ✓ ok ✕ error ⊘ cancelled ! late; flag ✓ valid token; S→R progress sent→relayed",
}

// fullHelpLines is the `?` view: the key columns, then the filter syntax.
func (m *Model) fullHelpLines() []string {
	var lines []string
	for _, l := range strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n") {
		lines = append(lines, " "+l)
	}
	lines = append(lines, "")
	for _, p := range filterHelp {
		for _, l := range wrapWords(p, max(20, m.width-2)) {
			lines = append(lines, " "+m.st.muted.on(l))
		}
	}
	// Keep at least one line of the table or the detail above it; help
	// that needs more takes the screen instead (helpTakesScreen).
	room := max(1, m.height-tableTop-1)
	if len(lines) > room && !m.helpTakesScreen() {
		lines = lines[:room]
	}
	return lines
}

// helpTakesScreen: the full help does not fit under the table, so it is
// drawn alone under the title, whole as far as the terminal allows.
func (m *Model) helpTakesScreen() bool {
	return m.help.ShowAll && !m.filtering && m.height > 4 && m.helpLineCount() > m.height-tableTop-1
}

// helpLineCount is how many lines the full help has at this width.
func (m *Model) helpLineCount() int {
	n := len(strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n")) + 1
	for _, p := range filterHelp {
		n += len(wrapWords(p, max(20, m.width-2)))
	}
	return n
}

// wrapWords breaks text at spaces (and commas in long runs) to width cells.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	var words []string
	for _, w := range strings.Fields(text) {
		if ansi.StringWidth(w) <= width {
			words = append(words, w)
			continue
		}
		// a long list breaks after its commas, glued back when it fits
		parts := strings.SplitAfter(w, ",")
		cur := ""
		for _, p := range parts {
			if cur != "" && ansi.StringWidth(cur+p) > width {
				words = append(words, cut(cur, width))
				cur = ""
			}
			cur += p
		}
		if cur != "" {
			words = append(words, cut(cur, width))
		}
	}
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case ansi.StringWidth(line)+1+ansi.StringWidth(w) <= width:
			line += " " + w
		default:
			lines, line = append(lines, line), w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// tableRows is how many calls fit on screen.
func (m *Model) tableRows() int { return max(1, m.height-tableTop-m.footerLines()) }

// detailHeight is the viewport's height: below the title and call lines.
func (m *Model) detailHeight() int { return max(1, m.height-2-m.footerLines()) }

// View draws the frame: header, then the table or the detail, then the footer.
func (m *Model) View() string {
	var b strings.Builder
	b.Grow(m.width * (m.height + 1) * 2)
	m.renderTitle(&b)
	b.WriteByte('\n')
	if m.helpTakesScreen() {
		lines := m.fullHelpLines()
		room := m.height - 1
		if len(lines) > room {
			lines = append(lines[:room-1], " "+m.st.muted.on("… a taller terminal shows the rest (? closes)"))
		}
		for i := 0; i < room; i++ {
			if i > 0 {
				b.WriteByte('\n')
			}
			if i < len(lines) {
				b.WriteString(fitColored(lines[i], m.width))
			}
		}
		return b.String()
	}
	if m.mode != modeTable {
		if m.mode == modeLog {
			m.renderLogLine(&b)
		} else {
			m.renderCallLine(&b)
		}
		b.WriteByte('\n')
		b.WriteString(m.viewport.View())
	} else {
		m.renderSources(&b)
		b.WriteByte('\n')
		m.renderTable(&b)
	}
	b.WriteByte('\n')
	m.renderFooter(&b)
	return b.String()
}

// renderTitle: program, title, totals, rate, and follow/pause state.
func (m *Model) renderTitle(b *strings.Builder) {
	st := &m.st
	left := st.title.on(" toolscope")
	if m.opts.Title != "" {
		left += st.muted.on(" · ") + model.Sanitize(m.opts.Title)
	}
	snap := m.snap
	events := snap.Events + int64(m.waiting)
	// The long form when it fits beside the title, else a compact one.
	var r string
	for _, compact := range []bool{false, true} {
		word := func(long, short string) string {
			if compact {
				return short
			}
			return long
		}
		right := []string{
			formatCount(events) + st.muted.on(word(" events", " ev")),
			formatCount(int64(len(snap.Calls))) + st.muted.on(" calls"),
		}
		if m.running > 0 {
			right = append(right, st.run.on(formatCount(int64(m.running))+word(" running", " run")))
		}
		right = append(right, strconv.FormatFloat(m.rate.perSecond(), 'f', 0, 64)+st.muted.on("/s"))
		if snap.Warnings > 0 {
			right = append(right, st.warn.on("⚠ "+formatCount(snap.Warnings)))
		}
		if snap.Evicted > 0 && !compact {
			right = append(right, st.muted.on(formatCount(snap.Evicted)+" evicted"))
		}
		switch {
		case m.paused:
			right = append(right, st.warn.on(word("⏸ PAUSED · ", "⏸ PAUSED ")+formatCount(int64(m.waiting))+" waiting"))
		case m.mode == modeTable && m.follow:
			right = append(right, st.accent.on(word("● follow", "●")))
		}
		r = strings.Join(right, st.muted.on(" · ")) + " "
		if ansi.StringWidth(left)+ansi.StringWidth(r)+1 <= m.width {
			break
		}
	}
	m.joinEnds(b, left, r)
}

// joinEnds writes left and right on one line of m.width, cutting the left.
func (m *Model) joinEnds(b *strings.Builder, left, right string) {
	rw := ansi.StringWidth(right)
	if rw > m.width {
		right = ansi.Truncate(right, m.width, "…")
		rw = ansi.StringWidth(right)
	}
	lw := ansi.StringWidth(left)
	if lw > m.width-rw-1 {
		left = ansi.Truncate(left, max(0, m.width-rw-1), "…")
		lw = ansi.StringWidth(left)
	}
	b.WriteString(left)
	b.WriteString(strings.Repeat(" ", max(0, m.width-lw-rw)))
	b.WriteString(right)
}

// renderSources: each source with its state and counts, on one line.
func (m *Model) renderSources(b *strings.Builder) {
	st := &m.st
	if len(m.snap.Sources) == 0 {
		b.WriteString(fit(st.muted.on(" no source has reported yet"), m.width))
		return
	}
	// Full labels when they fit, else fewer counts, else a summary by kind
	// and state ("2 taps ended   3 feeds connected"), cut only if even that
	// does not fit.
	for detail := 2; detail >= 0; detail-- {
		parts := make([]string, 0, len(m.snap.Sources))
		for _, s := range m.snap.Sources {
			parts = append(parts, m.sourceLabel(s, detail))
		}
		line := " " + strings.Join(parts, st.muted.on("   "))
		if ansi.StringWidth(line) <= m.width {
			b.WriteString(fitColored(line, m.width))
			return
		}
	}
	b.WriteString(fitColored(" "+strings.Join(m.sourceSummary(), st.muted.on("   ")), m.width))
}

// sourceSummary counts the sources by kind and state, problems first.
func (m *Model) sourceSummary() []string {
	type group struct {
		kind, state string
		n           int
		first       model.SourceState
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
	for _, s := range m.snap.Sources {
		g := find(s.Source, s.State)
		if g.n == 0 {
			g.first = s
		}
		g.n++
	}
	var problems, rest []string
	for _, g := range groups {
		label := m.sourceLabel(g.first, 0)
		if g.n > 1 {
			s := g.first
			s.Source, s.Name = "", strconv.Itoa(g.n)+" "+model.Sanitize(g.kind)+"s"
			label = m.sourceLabel(s, 0)
		}
		if g.state == model.StateFailed || g.state == model.StateReconnecting {
			problems = append(problems, label)
		} else {
			rest = append(rest, label)
		}
	}
	return append(problems, rest...)
}

// sourceLabel: detail 2 has event and call counts, 1 events only, 0 none.
func (m *Model) sourceLabel(s model.SourceState, detail int) string {
	st := &m.st
	dot, state := st.muted.on("○"), model.Sanitize(s.State)
	switch s.State {
	case model.StateConnected:
		dot = st.ok.on("●")
	case model.StateConnecting:
		dot = st.warn.on("●")
	case model.StateReconnecting:
		dot = st.warn.on("●")
		state = st.warn.on("reconnecting " + strconv.Itoa(s.Attempts))
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
	if s.Source != "" && s.Name != s.Source {
		label += st.muted.on(model.Sanitize(s.Source) + " ")
	}
	label += cut(name, 28)
	if state != "" {
		label += " " + state
	}
	switch detail {
	case 2:
		label += st.muted.on(" · " + formatCount(s.Events) + " ev · " + strconv.Itoa(s.Calls) + " calls")
	case 1:
		label += st.muted.on(" · " + formatCount(s.Events) + " ev")
	}
	return label
}

func (m *Model) renderTable(b *strings.Builder) {
	h := m.tableRows()
	m.compactFlags = m.width < compactFlagsWidth
	cols := layoutColumns(m.width, m.contentWidths(h))
	st := &m.st
	var hdr strings.Builder
	hdr.WriteString(strings.Repeat(" ", markerWidth))
	for i, c := range cols {
		if i > 0 {
			hdr.WriteByte(' ')
		}
		if c.right {
			hdr.WriteString(fitRight(c.title, c.width))
		} else {
			hdr.WriteString(fit(c.title, c.width))
		}
	}
	b.WriteString(st.colHeader.on(fit(hdr.String(), m.width)))
	b.WriteByte('\n')

	if len(m.rows) == 0 {
		m.renderEmptyTable(b, h)
		return
	}
	// Virtualised: only the rows in the window are rendered. Lines the
	// calls leave free say why a source failed, if one did.
	end := min(len(m.rows), m.offset+h)
	var below []string
	if free := h - (end - m.offset) - 1; free > 0 {
		below = m.sourceProblems(m.width)
		if len(below) > free {
			below = below[:free]
		}
	}
	for i := m.offset; i < m.offset+h; i++ {
		if i > m.offset {
			b.WriteByte('\n')
		}
		switch {
		case i < end:
			m.renderRow(b, m.rows[i], cols, i == m.cursor)
		case i > end && i-end-1 < len(below) && below[i-end-1] != "":
			b.WriteString(fitColored(below[i-end-1], m.width))
		}
	}
}

// renderFooter: the filter input while typing, the full help, or the short
// help with the position and any message.
func (m *Model) renderFooter(b *strings.Builder) {
	st := &m.st
	if m.filtering {
		count := st.muted.on(strconv.Itoa(len(m.rows))+" of "+strconv.Itoa(len(m.snap.Calls))) + " "
		if p := m.filterProblem(); p != "" {
			count = p + "  " + count
		}
		m.joinEnds(b, " "+m.input.View(), count)
		return
	}
	m.keys.detail = m.mode != modeTable
	if m.help.ShowAll {
		for i, l := range m.fullHelpLines() {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(fitColored(l, m.width))
		}
		return
	}
	var right []string
	if m.flash != "" && !m.opts.Now().After(m.flashUntil) {
		// Room for " ? help" stays; a long message (a path) keeps its end.
		flash := model.Sanitize(m.flash)
		if limit := m.width - 10; ansi.StringWidth(flash) > limit && limit > 1 {
			flash = ansi.TruncateLeft(flash, ansi.StringWidth(flash)-limit+1, "…")
		}
		right = append(right, st.accent.on(flash))
	}
	if m.mode == modeTable {
		if !m.filter.empty() {
			right = append(right, st.warn.on("/"+model.Sanitize(m.filter.text)))
		}
		if p := m.filterProblem(); p != "" {
			right = append(right, p)
		}
		pos := "0/0"
		if len(m.rows) > 0 {
			pos = strconv.Itoa(m.cursor+1) + "/" + strconv.Itoa(len(m.rows))
		}
		right = append(right, st.muted.on(pos))
	} else {
		right = append(right, st.muted.on(strconv.Itoa(int(m.viewport.ScrollPercent()*100))+"%"))
	}
	if len(right) > 1 && m.flash != "" && ansi.StringWidth(strings.Join(right, "  "))+10 > m.width {
		right = right[:1] // a message (a saved file's path) before the position
	}
	m.help.Width = 0 // the bindings are chosen to fit; help must not cut "? help"
	room := max(6, m.width-ansi.StringWidth(strings.Join(right, "  "))-3)
	left := " " + m.help.ShortHelpView(m.keys.shortHelpFitting(room, m.help.ShortHelpView))
	m.joinEnds(b, left, strings.Join(right, "  ")+" ")
}

// contentWidths measures the rows in the window: the table is laid out for
// what is on screen.
func (m *Model) contentWidths(h int) contentWidths {
	var w contentWidths
	end := min(len(m.rows), m.offset+h)
	for _, c := range m.rows[min(m.offset, end):end] {
		tool, _ := displayTool(c)
		w.tool = max(w.tool, ansi.StringWidth(model.Sanitize(tool)))
		w.flags = max(w.flags, ansi.StringWidth(m.flagsCell(c, m.compactFlags)))
		if sent, rel := c.SentCount(), c.RelayedCount(); sent > 0 || rel > 0 {
			w.relay = max(w.relay, len(strconv.Itoa(sent))+1+len(strconv.Itoa(rel)))
		}
		w.status = max(w.status, len(c.Status))
		w.elapsed = max(w.elapsed, ansi.StringWidth(m.elapsedText(c)))
	}
	return w
}

// filterProblem is the first thing the filter names that does not exist.
func (m *Model) filterProblem() string {
	if len(m.filter.problems) == 0 {
		return ""
	}
	return m.st.warn.on("⚠ " + model.Sanitize(m.filter.problems[0]))
}
