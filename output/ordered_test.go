package output

import (
	"sync"
	"testing"
	"time"

	"toolscope/model"
)

// recorder is an Output that keeps what it was given.
type recorder struct {
	mu     sync.Mutex
	events []model.Event
	closed bool
}

func (r *recorder) Emit(e model.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}

func (r *recorder) got() []model.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]model.Event(nil), r.events...)
}

// TestInTimeOrder: events that arrive out of time order (a tap's call
// stamped when its request arrived, sent on after a later progress) are
// handed on in time order; an event is held about a window, no longer
// than two; Close hands on what is held.
func TestInTimeOrder(t *testing.T) {
	r := &recorder{}
	o := InTimeOrder(r, 50*time.Millisecond)
	base := time.Now()
	for _, ms := range []int{5, 1, 3, 2, 4} {
		o.Emit(model.Event{Time: base.Add(time.Duration(ms) * time.Millisecond), Kind: model.KindToolProgress, Message: itoa(ms)})
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(r.got()) < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if d := time.Since(base); d > time.Second {
		t.Errorf("held %v", d)
	}
	got := r.got()
	if len(got) != 5 {
		t.Fatalf("%d events handed on, want 5", len(got))
	}
	for i, e := range got {
		if e.Message != itoa(i+1) {
			t.Fatalf("order %v, want 1 2 3 4 5", messages(got))
		}
	}
	// A clock ahead of ours (a platform's): held two windows, not until
	// its time comes.
	o.Emit(model.Event{Time: time.Now().Add(time.Hour), Message: "ahead"})
	start := time.Now()
	for len(r.got()) < 6 && time.Since(start) < 2*time.Second {
		time.Sleep(5 * time.Millisecond)
	}
	if len(r.got()) != 6 || time.Since(start) > time.Second {
		t.Errorf("an event stamped ahead was held %v", time.Since(start))
	}
	// Close hands on what is held.
	o.Emit(model.Event{Time: time.Now().Add(time.Hour), Message: "last"})
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if got := r.got(); len(got) != 7 || got[6].Message != "last" || !r.closed {
		t.Errorf("after Close: %v closed=%v", messages(got), r.closed)
	}
	o.Emit(model.Event{Message: "after"}) // ignored, no panic
}

// TestInTimeOrderNeverWaits: Emit returns at once while the output blocks.
func TestInTimeOrderNeverWaits(t *testing.T) {
	release := make(chan struct{})
	b := &blocking{release: release}
	o := InTimeOrder(b, time.Millisecond)
	base := time.Now()
	start := time.Now()
	for i := range 10000 {
		o.Emit(model.Event{Time: base.Add(time.Duration(i))})
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("10000 Emits took %v with the output blocked", d)
	}
	close(release)
	o.Close()
	if b.n != 10000 {
		t.Errorf("%d events reached the output, want 10000", b.n)
	}
}

type blocking struct {
	release chan struct{}
	n       int
}

func (b *blocking) Emit(model.Event) { <-b.release; b.n++ }
func (b *blocking) Close() error     { return nil }

func messages(evs []model.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Message)
	}
	return out
}

func itoa(i int) string { return string(rune('0' + i)) }
