package demo

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// plannedTimes is when, on the scenario clock, each progress notification
// was planned: the server's tools record it as they send, the platform reads
// it to apply the 0.5 s relay rule. So which notifications are relayed does
// not depend on timer jitter or a loaded machine, and a run tells the same
// story at every --speed (the scenario table of docs/commands/demo.md).
type plannedTimes struct {
	mu sync.Mutex
	at map[string]time.Duration
}

func newPlannedTimes() *plannedTimes { return &plannedTimes{at: map[string]time.Duration{}} }

// key names one notification: its progress token (as JSON text, unquoted)
// and its progress value.
func plannedKey(token string, progress float64) string {
	return strings.Trim(token, `"`) + "/" + fmt.Sprint(progress)
}

func (p *plannedTimes) set(token string, progress float64, at time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.at) < 1<<16 { // a demo run sends a few dozen
		p.at[plannedKey(token, progress)] = at
	}
}

func (p *plannedTimes) get(token string, progress float64) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	at, ok := p.at[plannedKey(token, progress)]
	return at, ok
}
