package hardening_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"toolscope/model/modeltest"
)

// corpusCase is one line of a file of the hostile corpus
// (modeltest.Testdata("hostile")): its fields, the last one Go-unquoted.
type corpusCase struct {
	Name   string
	Fields []string // between the name and the text
	Text   string
}

func loadCorpus(t *testing.T, file string) []corpusCase {
	t.Helper()
	path := modeltest.Testdata("hostile", file)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) < 2 {
			t.Fatalf("%s:%d: want NAME<TAB>...\"text\"", file, n)
		}
		text, err := strconv.Unquote(parts[len(parts)-1])
		if err != nil {
			t.Fatalf("%s:%d: %v", file, n, err)
		}
		out = append(out, corpusCase{Name: parts[0], Fields: parts[1 : len(parts)-1], Text: text})
	}
	if len(out) == 0 {
		t.Fatalf("%s: no cases", file)
	}
	return out
}

// rawJSONString quotes s as a JSON string the way a careless server would:
// what JSON forbids raw (controls, quote, backslash) is escaped, every other
// byte, invalid UTF-8 and C1 controls included, is written as is.
func rawJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// inertProblem says what in s could drive a terminal, or "" when nothing:
// text must be valid UTF-8 with no C0 control but the line break, no DEL,
// no C1 control and no bidirectional override or isolate.
func inertProblem(s string) string {
	if !utf8.ValidString(s) {
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size <= 1 {
				return fmt.Sprintf("invalid UTF-8 byte %#x at %d: %q", s[i], i, around(s, i))
			}
			i += size
		}
	}
	for i, r := range s {
		switch {
		case r == '\n':
		case r < 0x20 || r == 0x7f:
			return fmt.Sprintf("control %U at %d: %q", r, i, around(s, i))
		case r >= 0x80 && r < 0xa0:
			return fmt.Sprintf("C1 control %U at %d: %q", r, i, around(s, i))
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return fmt.Sprintf("bidi control %U at %d: %q", r, i, around(s, i))
		}
	}
	return ""
}

func around(s string, i int) string {
	return s[max(0, i-30):min(len(s), i+30)]
}
