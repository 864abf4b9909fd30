package model

// plainRun is the index of the first byte of s at or after i that the
// table does not call plain, len(s) if none. Four bytes are judged per
// step (one bounds check, one branch back): most of an event's text is
// plain, and this loop showed in the profile of every line.
func plainRun[T string | []byte](s T, i int, plain *[256]bool) int {
	for i+4 <= len(s) {
		b := s[i : i+4]
		if !plain[b[0]] || !plain[b[1]] || !plain[b[2]] || !plain[b[3]] {
			break
		}
		i += 4
	}
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}
