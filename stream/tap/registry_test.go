package tap

import "testing"

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
