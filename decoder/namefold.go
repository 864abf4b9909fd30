package decoder

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// latinSpecial spells the Latin letters that do not decompose to ASCII.
var latinSpecial = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'Æ': "ae", 'æ': "ae", 'Ǽ': "ae", 'ǽ': "ae", 'Ǣ': "ae", 'ǣ': "ae",
	'Œ': "oe", 'œ': "oe", 'Ø': "o", 'ø': "o", 'Ǿ': "o", 'ǿ': "o", 'Đ': "d", 'đ': "d",
	'Ð': "d", 'ð': "d", 'Ł': "l", 'ł': "l", 'Þ': "th", 'þ': "th", 'ı': "i", 'ĸ': "k",
	'ŉ': "n", 'Ŋ': "n", 'ŋ': "n", 'Ħ': "h", 'ħ': "h", 'Ŧ': "t", 'ŧ': "t", 'Ĳ': "ij",
	'ĳ': "ij", 'ſ': "s", 'Ŀ': "l", 'ŀ': "l", 'ƒ': "f", 'Ɠ': "g", 'ƙ': "k", 'ƚ': "l",
	'Ƶ': "z", 'ƶ': "z", 'Ǆ': "dz", 'ǅ': "dz", 'ǆ': "dz", 'Ǉ': "lj", 'ǈ': "lj", 'ǉ': "lj",
	'Ǌ': "nj", 'ǋ': "nj", 'ǌ': "nj", 'Ǳ': "dz", 'ǲ': "dz", 'ǳ': "dz",
}

// latinFold spells a Latin letter with diacritics (U+00C0..U+024F,
// U+1E00..U+1EFF) in lowercase ASCII: its compatibility decomposition
// without the marks, or latinSpecial's spelling.
func latinFold(r rune) (string, bool) {
	if !(r >= 0xC0 && r <= 0x24F || r >= 0x1E00 && r <= 0x1EFF) {
		return "", false
	}
	if s, ok := latinSpecial[r]; ok {
		return s, true
	}
	var b strings.Builder
	for _, c := range norm.NFKD.String(string(r)) {
		switch {
		case unicode.Is(unicode.Mn, c):
		case c < 0x80 && unicode.IsLetter(c):
			b.WriteRune(unicode.ToLower(c))
		default:
			return "", false
		}
	}
	return b.String(), b.Len() > 0
}
