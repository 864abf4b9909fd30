package model

import (
	"strconv"
	"time"
)

// How the screen and the MCP server write durations: one way, so a call's
// cause reads the same in both.

// FormatDuration is compact and stable in width: 850ms, 3.2s, 42s, 4m05s, 1h02m.
func FormatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		m := int(d / time.Minute)
		s := int((d % time.Minute) / time.Second)
		return strconv.Itoa(m) + "m" + pad2(s) + "s"
	}
	h := int(d / time.Hour)
	m := int((d % time.Hour) / time.Minute)
	return strconv.Itoa(h) + "h" + pad2(m) + "m"
}

// FormatTimeout writes a timeout the way the contract talks about them (300s).
func FormatTimeout(ms int64) string {
	if ms%1000 == 0 {
		return strconv.FormatInt(ms/1000, 10) + "s"
	}
	return FormatDuration(time.Duration(ms) * time.Millisecond)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
