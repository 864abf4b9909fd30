package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// candidateKeys is every key a user may press: printable runes, the arrows
// and the other named keys, and ctrl+a to ctrl+z.
func candidateKeys() []tea.KeyMsg {
	var keys []tea.KeyMsg
	for r := rune(0x21); r < 0x7f; r++ {
		keys = append(keys, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	for _, t := range []tea.KeyType{tea.KeySpace, tea.KeyUp, tea.KeyDown, tea.KeyLeft, tea.KeyRight, tea.KeyHome,
		tea.KeyEnd, tea.KeyPgUp, tea.KeyPgDown, tea.KeyEnter, tea.KeyEsc, tea.KeyTab, tea.KeyShiftTab,
		tea.KeyBackspace, tea.KeyDelete, tea.KeyInsert} {
		keys = append(keys, tea.KeyMsg{Type: t})
	}
	for t := tea.KeyCtrlA; t <= tea.KeyCtrlZ; t++ {
		keys = append(keys, tea.KeyMsg{Type: t})
	}
	return keys
}

// shownName is a key as the help writes it.
func shownName(k tea.KeyMsg) string {
	s := k.String()
	if name, ok := map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→", "pgdown": "pgdn", " ": "space"}[s]; ok {
		return name
	}
	return s
}

// helpNames are the key names on a `?` screen: "↑/k" names ↑ and k.
func helpNames(view string) map[string]bool {
	names := map[string]bool{}
	for _, f := range strings.Fields(view) {
		if f == "/" {
			names[f] = true
			continue
		}
		for _, n := range strings.Split(f, "/") {
			names[n] = true
		}
	}
	return names
}

// TestEveryKeyThatWorksIsInTheHelp: in the table, the detail and the log,
// any key that changes the screen or returns a command is listed on that
// view's `?` screen.
func TestEveryKeyThatWorksIsInTheHelp(t *testing.T) {
	store := fixtureStore()
	for i := 0; i < 40; i++ { // a log long enough to scroll
		store.Apply(model.Event{Time: at(60000 + i), Source: model.SourceFeed, SourceName: "task-6f1c",
			Kind: model.KindWarning, Code: "malformed_event", Message: "line " + itoa(i)})
	}
	views := []struct {
		name  string
		setup []string // keys that bring the view to a state where most keys act
	}{
		{"table", []string{"g", "j", "j", "j"}},
		{"detail", []string{"g", "j", "<enter>", "<pgdown>"}},
		{"log", []string{"l", "g", "<pgdown>"}},
	}
	for _, v := range views {
		ready := func(w, h int) *Model {
			m := newModel(store, testOptions(nil))
			send(m, tea.WindowSizeMsg{Width: w, Height: h})
			send(m, keyMsgs(v.setup...)...)
			return m
		}
		// A short terminal: the `?` screen takes it whole.
		h := ready(120, 12)
		send(h, keyMsgs("?")...)
		listed := helpNames(h.View())
		for _, k := range candidateKeys() {
			m := ready(120, 30)
			before := m.View()
			cmd := send(m, k)
			if m.View() == before && cmd == nil {
				continue // the key does nothing here
			}
			if !listed[shownName(k)] {
				t.Errorf("%s: %q works but its `?` screen does not list it:\n%s", v.name, shownName(k), h.View())
			}
		}
	}
}

// TestFooterLabelsNameTheirKeys: a footer hint ("↑/k") names only keys its
// binding answers, in every part's keymap.
func TestFooterLabelsNameTheirKeys(t *testing.T) {
	m := newModel(fixtureStore(), testOptions(nil))
	for _, c := range []component{&m.table, &m.detail, &m.log} {
		for _, col := range c.FullHelp() {
			for _, b := range col {
				full := fullHelpKeys([][]key.Binding{{b}})[0][0].Help().Key
				has := map[string]bool{}
				for _, n := range strings.Split(full, "/") {
					has[n] = true
				}
				for _, n := range strings.Split(b.Help().Key, "/") {
					if !has[n] {
						t.Errorf("%q %s: the hint names %q, a key it does not answer (%s)", b.Help().Key, b.Help().Desc, n, full)
					}
				}
			}
		}
	}
}
