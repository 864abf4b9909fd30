package tap

import (
	"strconv"
	"testing"
)

// FuzzParseContentLength: the head's Content-Length is read as
// strconv.ParseInt reads it.
func FuzzParseContentLength(f *testing.F) {
	for _, s := range []string{"0", "12", "+7", "-0", "-3", "", "+", "1_0", "0x1", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "99999999999999999999", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseContentLength([]byte(s))
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("%q: got %d %v, want %d %v", s, got, ok, want, err)
		}
	})
}
