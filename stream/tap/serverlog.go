package tap

import (
	"bytes"
	"fmt"
	"log"
	"sync"
	"time"

	"toolscope/model"
)

// net/http's server logs what it meets outside any handler (a panic it
// recovered, an accept that failed) to its ErrorLog, by default stderr,
// which is the screen under the TUI. The tap's goes into warnings instead:
// the first line of each (no stack), at most one a second, with a count of
// the ones left out in the next.
type serverLog struct {
	t        *Tap
	mu       sync.Mutex
	last     time.Time
	withheld int
}

const serverLogEvery = time.Second

func newServerLog(t *Tap) *log.Logger { return log.New(&serverLog{t: t}, "", 0) }

func (l *serverLog) Write(p []byte) (int, error) {
	line, _, _ := bytes.Cut(bytes.TrimSpace(p), []byte("\n"))
	l.mu.Lock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < serverLogEvery {
		l.withheld++
		l.mu.Unlock()
		return len(p), nil
	}
	l.last = now
	withheld := l.withheld
	l.withheld = 0
	l.mu.Unlock()
	msg := fmt.Sprintf("tap %s: %s", l.t.cfg.Name, line)
	if withheld > 0 {
		msg += fmt.Sprintf(" (and %d more since the last)", withheld)
	}
	t := l.t
	t.runners.aside(t, func() {
		t.emit(model.Event{Kind: model.KindWarning, Code: string(model.WarnTapServerError), Message: msg})
	})
	return len(p), nil
}
