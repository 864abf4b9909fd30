package demo

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// story is what the scenario table (docs/commands/demo.md) says of a run, call by call:
// outcome, flags, progress sent and relayed, and how far each call got.
func story(t *testing.T, speed float64) []string {
	_, store := runDemo(t, speed)
	var lines []string
	for _, c := range store.Snapshot().Calls {
		p := c.Progress
		line := fmt.Sprintf("%s sent=%d relayed=%d progress=%g/%g", outline(c), c.SentCount(), c.RelayedCount(), p.Progress, p.Total)
		if c.Tool == toolExportLedger {
			// How far it got when the timeout struck is a matter of the
			// machine's load (18000 when idle); its size and that every
			// step is relayed are the story.
			line = fmt.Sprintf("%s every step relayed=%t progress=x/%g", outline(c),
				c.SentCount() > 0 && c.SentCount() == c.RelayedCount(), p.Total)
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	return lines
}

// TestSpeedKeepsTheStory: --speed scales time, not outcomes. Two speeds,
// run side by side, tell the same story, and it is docs/commands/demo.md's: 23→12 for
// the workbook, 14→7 for the archive, an export of 27000 rows cut by the
// timeout.
func TestSpeedKeepsTheStory(t *testing.T) {
	speeds := []float64{10, 4}
	stories := make([][]string, len(speeds))
	t.Run("runs", func(t *testing.T) {
		for i, s := range speeds {
			t.Run(fmt.Sprint(s), func(t *testing.T) {
				t.Parallel() // side by side: the whole test takes one slow run
				stories[i] = story(t, s)
			})
		}
	})
	if t.Failed() {
		return
	}
	a, b := strings.Join(stories[0], "\n"), strings.Join(stories[1], "\n")
	if a != b {
		t.Errorf("speed %g:\n%s\nspeed %g:\n%s", speeds[0], a, speeds[1], b)
	}
	for _, want := range []string{
		"read_workbook ok attempts=1 sent=23 token=valid structured sent=23 relayed=12 progress=23/23",
		"scan_archive ok attempts=1 sent=14 token=valid sent=14 relayed=7 progress=518/0",
		"export_ledger cancelled attempts=1 sent=x token=valid cancelled every step relayed=true progress=x/27000",
	} {
		if !strings.Contains(a, want) {
			t.Errorf("the story lacks %q:\n%s", want, a)
		}
	}
}
