package ui

import (
	"bytes"
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

// helpNames are the key names in the key columns of a `?` screen that takes
// the terminal (the lines between the title and the first blank line):
// "↑/k up" names ↑ and k.
func helpNames(view string) map[string]bool {
	names := map[string]bool{}
	for _, line := range strings.Split(view, "\n")[1:] {
		if strings.TrimSpace(line) == "" {
			break
		}
		for _, f := range strings.Fields(line) {
			if f == "/" {
				names[f] = true
				continue
			}
			for _, n := range strings.Split(f, "/") {
				names[n] = true
			}
		}
	}
	return names
}

// keyViews are the table, the detail and the log, each with the keys that
// bring it to a state where most keys act (mid-list, mid-page).
var keyViews = []struct {
	name  string
	setup []string
}{
	{"table", []string{"g", "j", "j", "j"}},
	{"detail", []string{"g", "<enter>", "<pgdown>"}},
	{"log", []string{"l", "g", "<pgdown>"}},
	{"tasks", []string{"t", "g", "j"}},
}

// keysStore is the fixture with a log long enough to scroll.
func keysStore() *model.Store {
	store := fixtureStore()
	for i := 0; i < 100; i++ {
		store.Apply(model.Event{Time: at(60000 + i), Source: model.SourceFeed, SourceName: "task-6f1c",
			Kind: model.KindWarning, Code: "malformed_event", Message: "line " + itoa(i)})
	}
	return store
}

// keyViewAt is a view at a size, ready; the `?` screen when help is set.
func keyViewAt(store *model.Store, setup []string, w, h int, help bool) *Model {
	m := newModel(store, testOptions(&bytes.Buffer{}))
	send(m, tea.WindowSizeMsg{Width: w, Height: h})
	send(m, keyMsgs(setup...)...)
	if help {
		send(m, keyMsgs("?")...)
	}
	return m
}

// acts says whether k changes the view or returns a command.
func acts(m *Model, k tea.KeyMsg) bool {
	before := m.View()
	cmd := send(m, k)
	return cmd != nil || m.View() != before
}

// TestEveryKeyThatWorksIsInTheHelp: in the table, the detail and the log,
// any key that changes the screen or returns a command is listed on that
// view's `?` screen.
func TestEveryKeyThatWorksIsInTheHelp(t *testing.T) {
	store := keysStore()
	for _, v := range keyViews {
		// A short terminal: the `?` screen takes it whole.
		h := keyViewAt(store, v.setup, 120, 9, true)
		listed := helpNames(h.View())
		for _, k := range candidateKeys() {
			if !acts(keyViewAt(store, v.setup, 120, 30, false), k) {
				continue // the key does nothing here
			}
			if !listed[shownName(k)] {
				t.Errorf("%s: %q works but its `?` screen does not list it:\n%s", v.name, shownName(k), h.View())
			}
		}
	}
}

// TestEveryKeyInTheHelpWorks: every key a view's `?` screen lists acts in
// that view, with the help closed or open.
func TestEveryKeyInTheHelpWorks(t *testing.T) {
	store := keysStore()
	for _, v := range keyViews {
		h := keyViewAt(store, v.setup, 120, 9, true)
		listed := helpNames(h.View())
		pressed := map[string]bool{}
		for _, k := range candidateKeys() {
			name := shownName(k)
			if !listed[name] {
				continue
			}
			pressed[name] = true
			if !acts(keyViewAt(store, v.setup, 120, 40, false), k) && !acts(keyViewAt(store, v.setup, 120, 40, true), k) {
				t.Errorf("%s: the `?` screen lists %q but it does nothing there:\n%s", v.name, name, h.View())
			}
		}
		for name := range listed {
			if !pressed[name] && !helpWords[name] {
				t.Errorf("%s: the `?` screen lists %q, no key this test presses", v.name, name)
			}
		}
	}
}

// helpWords are the descriptions between the keys.
var helpWords = map[string]bool{"up": true, "down": true, "top": true, "bottom": true, "page": true,
	"detail": true, "back": true, "filter": true, "follow": true, "event": true, "log": true,
	"pause": true, "copy": true, "help": true, "quit": true, "tasks": true, "its": true, "calls": true,
	"all": true}

// TestFooterLabelsNameTheirKeys: a footer hint ("↑/k") names only keys its
// binding answers, in every part's keymap.
func TestFooterLabelsNameTheirKeys(t *testing.T) {
	m := newModel(fixtureStore(), testOptions(nil))
	for _, c := range []component{&m.table, &m.detail, &m.log, &m.tasks} {
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
