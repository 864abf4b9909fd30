package tap

import "math"

// The head is read as bytes, without copying it: these are the few text
// helpers it needs, for the ASCII of HTTP field names and values.

// parseContentLength reads a decimal as strconv.ParseInt(s, 10, 64) does.
func parseContentLength(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxInt64+1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	switch {
	case neg:
		return -int64(n), true // n may be 1<<63: -n is still MinInt64
	case n > math.MaxInt64:
		return 0, false
	}
	return int64(n), true
}

// knownMethod is method as a constant when it is a common one ("" if not):
// no string is made for it.
func knownMethod(method []byte) string {
	for _, m := range [...]string{"POST", "GET", "DELETE", "OPTIONS", "HEAD", "PUT"} {
		if string(method) == m {
			return m
		}
	}
	return ""
}
