package decoder_test

import "time"

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
