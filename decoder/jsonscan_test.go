package decoder

import "testing"

// plainRun's eight-byte steps stop where a byte-by-byte reading stops.
func FuzzPlainRun(f *testing.F) {
	for _, s := range []string{"", "abcdefgh", "abcdefgh\"", "0123456789abcdef\\n", "\x1f", "é\xffé \x7f\x80\"", "aaaaaaaaaaaaaaa\x00", "\x21\x23\x5b\x5d\x5c"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, s []byte, from int) {
		if from < 0 || from > len(s) {
			from = 0
		}
		want := from
		for want < len(s) && s[want] >= 0x20 && s[want] != '"' && s[want] != '\\' {
			want++
		}
		if got := plainRun(s, from); got != want {
			t.Errorf("plainRun(%q, %d) = %d, want %d", s, from, got, want)
		}
	})
}
