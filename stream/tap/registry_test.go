package tap

import (
	"testing"
	"time"
)

// TestRegistryScopes: ids are matched within a session; without one, on the
// same connection first, else only when a single session-less call holds the id.
func TestRegistryScopes(t *testing.T) {
	r := newRegistry()
	mk := func(session, conn string) *call {
		c := &call{idKey: "1", tokenKey: "tok", scope: scope{session: session, conn: conn}}
		r.add(c)
		return c
	}
	sessA := mk("A", "127.0.0.1:1000")
	sessB := mk("B", "127.0.0.1:1000") // the same connection: an HTTP client's pool
	lessX := mk("", "127.0.0.1:2000")
	lessY := mk("", "127.0.0.1:3000")
	for _, tc := range []struct {
		name   string
		s      scope
		want   *call
		others int
	}{
		{"session A", scope{"A", "127.0.0.1:9"}, sessA, 0},
		{"session B", scope{"B", "127.0.0.1:1000"}, sessB, 0},
		{"unknown session", scope{"C", "127.0.0.1:2000"}, nil, 0},
		{"same connection", scope{"", "127.0.0.1:3000"}, lessY, 0},
		{"another connection", scope{"", "127.0.0.1:4000"}, nil, 2},
	} {
		got, others := r.byIDIn("1", tc.s)
		if got != tc.want || len(others) != tc.others {
			t.Errorf("%s: got %p (others %d), want %p (%d)", tc.name, got, len(others), tc.want, tc.others)
		}
		if tok := r.byTokenIn("tok", tc.s); tok != tc.want {
			t.Errorf("%s: token matched %p, want %p", tc.name, tok, tc.want)
		}
	}
	r.remove(lessY)
	if got, _ := r.byIDIn("1", scope{"", "127.0.0.1:4000"}); got != lessX {
		t.Errorf("the one session-less call left: got %p, want %p", got, lessX)
	}
}

// TestHeldCancelEvicted: a held cancellation pushed out past maxHeld was
// claimed by no call, and release says so (it is shown unmatched, not
// silenced as if a call had taken it); a claimed one is reported claimed.
func TestHeldCancelEvicted(t *testing.T) {
	r := newRegistry()
	at := time.Now()
	first, _ := r.hold("9", "first", at, nil)
	for i := 0; i < maxHeld; i++ {
		r.hold("9", "more", at, nil)
	}
	if r.release(first) {
		t.Error("an evicted cancellation was reported claimed")
	}
	h, _ := r.hold("7", "taken", at, nil)
	if got := r.claimHeld(&call{idKey: "7"}, at.Add(time.Millisecond)); got != h {
		t.Fatalf("claimHeld = %v, want the held cancellation", got)
	}
	if !r.release(h) {
		t.Error("a claimed cancellation was reported unclaimed")
	}
}
