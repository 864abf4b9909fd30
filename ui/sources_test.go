package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// TestSourceStatesInTheHeader: every source's state is on the header's
// second line, the OpenTelemetry export's too (ok, failing with why), at
// every width: in full, or summarised by kind and state.
func TestSourceStatesInTheHeader(t *testing.T) {
	status := func(source, name, state, detail string) model.Event {
		return model.Event{Time: at(0), Source: source, SourceName: name, Kind: model.KindSourceStatus, State: state, Detail: detail}
	}
	for _, c := range []struct {
		otlp, detail string
		want         []string
	}{
		{model.StateConnected, "exporting to http://127.0.0.1:4318/v1/traces", []string{"otlp ok"}},
		{model.StateFailing, "export to http://127.0.0.1:1/v1/traces: dial tcp 127.0.0.1:1: connect: connection refused",
			[]string{"otlp failing: connection refused"}},
	} {
		store := model.NewStore(model.Options{})
		store.Apply(status(model.SourceTap, "tap:a", model.StateConnected, ""))
		store.Apply(status("", "otlp", c.otlp, c.detail))
		for _, w := range []int{160, 80} {
			m := newModel(store, testOptions(nil))
			send(m, tea.WindowSizeMsg{Width: w, Height: 24})
			line := strings.Split(m.View(), "\n")[1]
			for _, want := range append(c.want, "tap:a connected") {
				if !strings.Contains(line, want) {
					t.Errorf("%d columns: %q lacks %q", w, line, want)
				}
			}
		}
		// Many sources: a summary by kind and state, the troubled first,
		// a source's state said as a source's ("connected", not "ok").
		for i := range 12 {
			store.Apply(status(model.SourceFeed, "feed:task-"+itoa(i), model.StateConnected, ""))
		}
		m := newModel(store, testOptions(nil))
		send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
		line := strings.Split(m.View(), "\n")[1]
		for _, want := range append(c.want, "12 feeds connected", "tap:a connected") {
			if !strings.Contains(line, want) {
				t.Errorf("summary %q lacks %q", line, want)
			}
		}
	}
}

// TestTapFailingSaysWhyUnderTheCalls: a tap whose upstream does not answer
// says why in the lines the calls leave free.
func TestTapFailingSaysWhyUnderTheCalls(t *testing.T) {
	store := fixtureStore()
	store.Apply(model.Event{Time: at(60000), Source: model.SourceTap, SourceName: "local:7070", Kind: model.KindSourceStatus,
		State: model.StateFailing, Detail: "upstream http://127.0.0.1:9/mcp does not answer (the tap listens on 127.0.0.1:7070 and forwards once it does): dial tcp 127.0.0.1:9: connect: connection refused"})
	m := newModel(store, testOptions(nil))
	send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	words := strings.Join(strings.Fields(m.View()), " ")
	for _, want := range []string{"local:7070 failing: connection refused", "tap local:7070 failing", "does not answer", "forwards once it does"} {
		if !strings.Contains(words, want) {
			t.Errorf("the screen lacks %q:\n%s", want, m.View())
		}
	}
}
