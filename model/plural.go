package model

import "strconv"

// Plural is "1 thing" or "n things", for counts said in words.
func Plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
