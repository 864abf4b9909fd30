package decoder

import (
	"strconv"
	"strings"
	"testing"
)

// canonicalNumberReference is canonicalNumber as first written (one
// string built by concatenation), the reference its append form matches.
func canonicalNumberReference(s string) (string, bool) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg, i = true, i+1
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := s[intStart:i]
	if len(intDigits) == 0 || len(intDigits) > 1 && intDigits[0] == '0' {
		return "", false
	}
	var fracDigits string
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return "", false
		}
		fracDigits = s[start:i]
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		start := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		digits := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == digits || i-digits > 15 {
			return "", false
		}
		exp, _ = strconv.ParseInt(s[start:i], 10, 64)
	}
	if i != len(s) {
		return "", false
	}
	digits := intDigits + fracDigits
	exp += int64(len(intDigits))
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = strings.TrimRight(digits[lead:], "0")
	if digits == "" {
		return "0", true
	}
	exp -= int64(lead) + 1
	out := digits + "e" + strconv.FormatInt(exp, 10)
	if neg {
		out = "-" + out
	}
	return out, true
}

var numberCases = []string{"0", "-0", "1", "10", "1000", "1e3", "10.0E2", "0.000e5", "0.0100", "-1.5e-7",
	"12345678901234567890123", "1e999999999999999", "1e9999999999999999", "01", "1.", ".5", "-", "", "1e", "1e+", "9.000", "0.5", "-0.05e+2"}

func TestCanonicalNumberMatchesReference(t *testing.T) {
	for _, s := range numberCases {
		checkCanonicalNumber(t, s)
	}
}

func FuzzCanonicalNumber(f *testing.F) {
	for _, s := range numberCases {
		f.Add(s)
	}
	f.Fuzz(checkCanonicalNumber)
}

func checkCanonicalNumber(t *testing.T, s string) {
	got, ok := canonicalNumber(s)
	want, wantOK := canonicalNumberReference(s)
	if got != want || ok != wantOK {
		t.Errorf("canonicalNumber(%q) = %q, %v; want %q, %v", s, got, ok, want, wantOK)
	}
	if ok {
		if key := string(appendNumberKey(nil, []byte(s))); key != "n"+want {
			t.Errorf("appendNumberKey(%q) = %q, want %q", s, key, "n"+want)
		}
	}
}
