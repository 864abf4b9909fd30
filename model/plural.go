package model

import "strconv"

// Plural is n and its noun as messages say it: "1 feed", "2 feeds".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
