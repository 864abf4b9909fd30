package token

import (
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{12 * time.Second, "12 s"}, {4*time.Minute + 48*time.Second, "4 m 48 s"}, {10 * time.Minute, "10 m"},
		{2*time.Hour + 5*time.Minute, "2 h 5 m"}, {3 * time.Hour, "3 h"}, {76 * time.Hour, "3 d 4 h"}, {-90 * time.Second, "1 m 30 s"},
		{1400 * time.Millisecond, "1 s"},
	}
	for _, c := range cases {
		if got := HumanDuration(c.d); got != c.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestAppendQuote: the quick path quotes as strconv.AppendQuote does.
