package decoder

import (
	"testing"
	"time"

	"toolscope/decoder/jsonrpc"
)

func total(f float64) *float64 { return &f }

func TestRelaySimulator(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type note struct {
		ms       int
		progress float64
		total    *float64
		want     bool
	}
	cases := []struct {
		rule  string
		notes []note
	}{
		{"the first notification is relayed", []note{{0, 1, total(10), true}}},
		{"one within 0.5 s of the last relayed is dropped", []note{{0, 1, total(10), true}, {200, 2, total(10), false}, {499, 3, total(10), false}}},
		{"one 0.5 s after the last relayed is relayed", []note{{0, 1, total(10), true}, {300, 2, total(10), false}, {500, 3, total(10), true}, {900, 4, total(10), false}, {1000, 5, total(10), true}}},
		{"progress >= total is always relayed", []note{{0, 1, total(10), true}, {10, 10, total(10), true}, {20, 11, total(10), true}}},
		{"unknown total is rate limited only", []note{{0, 1, nil, true}, {100, 2, nil, false}, {600, 3, nil, true}}},
		{"23 notifications 100 ms apart relay 1 in 5 plus the last", func() []note {
			var ns []note
			for i := 1; i <= 23; i++ {
				ms := (i - 1) * 100
				ns = append(ns, note{ms, float64(i), total(23), ms%500 == 0 || i == 23})
			}
			return ns
		}()},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			var r RelaySimulator
			for i, n := range c.notes {
				if got := r.Relay(at(n.ms), jsonrpc.Progress{Progress: n.progress, Total: n.total}); got != n.want {
					t.Fatalf("notification %d at %d ms: relayed=%v, want %v", i, n.ms, got, n.want)
				}
			}
		})
	}
}

func TestProgressChecker(t *testing.T) {
	cases := []struct {
		rule   string
		values []float64
		warnAt int // index of the first warning, -1 for none
	}{
		{"increasing progress is fine", []float64{1, 2, 2.5, 10}, -1},
		{"repeated progress warns", []float64{1, 2, 2}, 2},
		{"decreasing progress warns", []float64{5, 3}, 1},
		{"the first notification never warns", []float64{0}, -1},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			var pc ProgressChecker
			first := -1
			for i, v := range c.values {
				if w := pc.Check(jsonrpc.Progress{Progress: v}); w != nil && first < 0 {
					first = i
					if w.Code != "progress_not_increasing" || w.Message == "" {
						t.Fatalf("warning %+v", w)
					}
				}
			}
			if first != c.warnAt {
				t.Fatalf("first warning at %d, want %d", first, c.warnAt)
			}
		})
	}
}
