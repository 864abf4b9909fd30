package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/progress"

	"toolscope/model"
)

// detailModel is one call, every section of it, in its own pager. It is
// rebuilt when the call changes in a new snapshot or the clock moves a
// second (relative times), and only redrawn when the text changed.
type detailModel struct {
	*common
	pager
	bar progress.Model

	width     int
	id        string
	call      *model.Call // nil: closed, or no longer in the store
	built     time.Time   // the clock the text was built at
	textWidth int         // the width the text was built for
	text      string      // the viewport's content, to skip an unchanged rebuild
	jsonCache jsonCache   // the call's JSON blocks
}

func newDetailModel(c *common, g *globalKeys) detailModel {
	return detailModel{common: c, pager: newPager(c, g, true), bar: newBar()}
}

// SetSize: height holds the call's line above the pager.
func (m *detailModel) SetSize(width, height int) {
	m.width = width
	m.pager.setSize(width, height-1)
	if m.id != "" && m.textWidth != width {
		m.build(false)
	}
}

func (m *detailModel) open(c *model.Call) {
	m.id = c.ID
	m.call = c
	m.text = ""
	m.viewport.SetContent("")
	m.build(true)
}

func (m *detailModel) close() {
	m.call = nil
	m.id = ""
	m.text = ""
	m.viewport.SetContent("")
	m.jsonCache = jsonCache{} // let the call's bytes go
}

// setCall takes the call's newer version from a new snapshot.
func (m *detailModel) setCall(c *model.Call) {
	m.call = c
	m.build(false)
}

// onClock rebuilds once the clock moved a second either way.
func (m *detailModel) onClock() {
	if d := m.now.Sub(m.built); d >= time.Second || d <= -time.Second {
		m.build(false)
	}
}

func (m *detailModel) focused() *model.Call { return m.call }

// build renders the call into the viewport; top scrolls back up.
func (m *detailModel) build(top bool) {
	m.built = m.now
	m.textWidth = m.width
	text := ""
	if m.call != nil {
		text = m.renderDetail(m.call)
	}
	if text != m.text || text == "" {
		m.text = text
		m.viewport.SetContent(text)
	}
	if top {
		m.viewport.GotoTop()
	}
}

// render writes the call's line, then the pager.
func (m *detailModel) render(b *strings.Builder) {
	m.renderCallLine(b)
	b.WriteByte('\n')
	b.WriteString(m.viewport.View())
}

// renderCallLine says which call this is.
func (m *detailModel) renderCallLine(b *strings.Builder) {
	c := m.call
	if c == nil {
		b.WriteString(fit(m.st.muted.on(" call "+model.Sanitize(m.id)+" is no longer in the store"), m.width))
		return
	}
	left := " " + m.st.muted.on("◂ ") + m.st.bold.on(model.Sanitize(toolName(c))) + "  " +
		m.st.muted.on(model.Sanitize(c.ID))
	right := m.st.status(c.Status).on(string(c.Status)) + m.st.muted.on(" · "+model.FormatDuration(c.Elapsed(m.now))) + " "
	joinEnds(b, left, right, m.width)
}
