package ui

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// pager is a viewport and the keys that scroll it: the detail and the event
// log each have one (glow's pager), so each keeps its own scroll position.
type pager struct {
	keys     pagerKeys
	viewport viewport.Model
	muted    paint // the scroll position's colour
}

func newPager(c *common, g *globalKeys, copies bool) pager {
	p := pager{keys: newPagerKeys(g, copies), viewport: viewport.New(80, 20), muted: c.st.muted}
	p.viewport.KeyMap = viewport.KeyMap{} // keys are the pager's; the viewport only takes the wheel
	return p
}

func (p *pager) ShortHelp() []key.Binding  { return p.keys.ShortHelp() }
func (p *pager) FullHelp() [][]key.Binding { return p.keys.FullHelp() }
func (p *pager) giveWay() []key.Binding    { return p.keys.giveWay() }

func (p *pager) setSize(width, height int) {
	p.viewport.Width = width
	p.viewport.Height = max(1, height)
}

func (p *pager) onKey(msg tea.KeyMsg) (request, tea.Cmd) {
	k := &p.keys
	vp := &p.viewport
	if key.Matches(msg, k.Back) {
		return goBack, nil
	}
	scroll(vp, &k.navKeys, msg)
	return stay, nil
}

// scroll moves a viewport by the navigation keys; it says whether msg was one.
func scroll(vp *viewport.Model, k *navKeys, msg tea.KeyMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}

func (p *pager) onMouse(msg tea.MouseMsg) tea.Cmd {
	var cmd tea.Cmd
	p.viewport, cmd = p.viewport.Update(msg)
	return cmd
}

// appendStatus adds the footer's right side: how far down the text is scrolled.
func (p *pager) appendStatus(right []string) []string {
	return append(right, p.muted.on(strconv.Itoa(int(p.viewport.ScrollPercent()*100))+"%"))
}
