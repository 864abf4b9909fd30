package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
)

// allLines runs indentJSON to the end and joins its lines.
func allLines(src string) (string, []jsonLine) {
	var out []string
	var lines []jsonLine
	stop := indentJSON([]byte(src), func(l *jsonLine) bool {
		out = append(out, string(l.text))
		c := *l
		c.text = nil
		lines = append(lines, c)
		return true
	})
	if stop != len(src) {
		panic("stopped early")
	}
	return strings.Join(out, "\n"), lines
}

// Within the bounds the lines are exactly json.Indent's.
func TestIndentJSONMatchesIndent(t *testing.T) {
	for _, src := range []string{
		`1`, `"x"`, `null`, `[]`, `{}`, ` [ ] `, `[[]]`, `{"a":{}}`, `[1, 2 ,3]`,
		`{"a":1,"b":[true,false,null],"c":{"d":"e\"f\\","g":[{},[]]}}`,
		`{"é":"日本語 ☃","esc":"\u001b[2J","raw":"` + "\u00e9" + `"}`,
		"{\n\t\"a\" : [ 1.5e3 , -2 ]\r\n}",
		nested(31) + "",
		wideJSON(20),
	} {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(src), "", "  "); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		got, lines := allLines(src)
		if got != strings.TrimRight(want.String(), " ") { // json.Indent keeps trailing space
			t.Errorf("%q:\n got %q\nwant %q", src, got, want.String())
		}
		for _, l := range lines {
			if l.deep != 0 || l.long != 0 {
				t.Errorf("%q: elided %+v", src, l)
			}
		}
	}
}

// Past maxJSONDepth a container is one compact line, bounded, and the rest
// goes on after it.
func TestIndentJSONCapsDepth(t *testing.T) {
	src := nested(9000)
	got, lines := allLines(src)
	if n := len(lines); n != 2*maxJSONDepth+1 {
		t.Errorf("%d lines, want %d", n, 2*maxJSONDepth+1)
	}
	mid := lines[maxJSONDepth]
	if mid.deep != 2*(9000-maxJSONDepth)-maxCompactBytes || mid.depth != maxJSONDepth {
		t.Errorf("middle line: %+v", mid)
	}
	if want := strings.Repeat("  ", maxJSONDepth) + strings.Repeat("[", maxCompactBytes) + "…"; !strings.Contains(got, want+"\n") {
		t.Errorf("no compact middle line %q", want)
	}
	// A small deep container is shown whole.
	got, _ = allLines(`{"a":` + nested(40) + `,"b":` + strings.Repeat(`{"k":`, 40) + `"v"` + strings.Repeat("}", 40) + `}`)
	// "a" is at depth 1: its arrays opened at depths 1..31 are indented,
	// the other 9 compact.
	if !strings.Contains(got, "\n"+strings.Repeat("  ", maxJSONDepth)+nested(9)+"\n") {
		t.Errorf("deep arrays not compact:\n%s", got)
	}
	if !strings.Contains(got, `{"k":{"k":"v"}}`) {
		t.Errorf("deep objects not compact:\n%s", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if len(l)-len(strings.TrimLeft(l, " ")) > 2*maxJSONDepth {
			t.Fatalf("line indented past %d levels: %q", maxJSONDepth, l[:80])
		}
	}
}

// A long string is cut on a character boundary; nothing after the cut is
// written but the lines after it are.
func TestIndentJSONCapsLineOnCharacters(t *testing.T) {
	for _, pad := range []int{0, 1, 2} {
		long := strings.Repeat("x", pad) + strings.Repeat("日", maxJSONLineBytes)
		got, lines := allLines(`{"a":"` + long + `","b":1}`)
		if !utf8.ValidString(got) {
			t.Errorf("pad %d: invalid UTF-8", pad)
		}
		if lines[1].long == 0 || !strings.HasSuffix(got, "\"b\": 1\n}") {
			t.Errorf("pad %d: %+v ... %q", pad, lines[1], got[len(got)-20:])
		}
		if n := len(strings.Split(got, "\n")[1]); n > maxJSONLineBytes+3 {
			t.Errorf("pad %d: line of %d bytes", pad, n)
		}
	}
	got, _ := allLines(`[` + strings.Repeat(`"é",`, 2*maxCompactBytes) + `1]`)
	if !utf8.ValidString(got) {
		t.Error("invalid UTF-8")
	}
	// A compact container cut inside a character keeps it whole.
	for pad := 0; pad < 3; pad++ {
		src := strings.Repeat("[", maxJSONDepth+1) + `"` + strings.Repeat("x", pad) + strings.Repeat("€", maxCompactBytes) + `"` + strings.Repeat("]", maxJSONDepth+1)
		got, _ := allLines(src)
		if !utf8.ValidString(got) {
			t.Errorf("compact pad %d: invalid UTF-8", pad)
		}
	}
}

// indentJSON stops as soon as emit says so and says where.
func TestIndentJSONStops(t *testing.T) {
	src := wideJSON(1000)
	n := 0
	stop := indentJSON([]byte(src), func(*jsonLine) bool { n++; return n < 10 })
	if n != 10 || stop <= 0 || stop >= 400 {
		t.Errorf("%d lines, stopped at %d of %d", n, stop, len(src))
	}
}

// The detail shows deep arguments bounded, and valid UTF-8 however the
// byte bounds fall.
func TestDetailOfDeepArguments(t *testing.T) {
	for _, args := range []string{nested(9000), wideJSON(20000), `["` + strings.Repeat("é", 40000) + `"]`, `[` + strings.Repeat("é", 40000)} {
		m := sized(detailStore(args), Options{Now: fixedClock})
		m.openDetail(m.snap.FindCall("call_deep"))
		text := m.detail.text
		if !utf8.ValidString(text) {
			t.Errorf("%.20q: invalid UTF-8", args)
		}
		if n := strings.Count(text, "\n"); n > maxJSONLines+100 {
			t.Errorf("%.20q: %d lines", args, n)
		}
		if !strings.Contains(text, "not shown") {
			t.Errorf("%.20q: nothing says what was left out", args)
		}
	}
}

// While the detail stays open, progress arrives and the clock moves: the
// view follows, but the arguments are rendered once per width.
func TestDetailKeepsItsJSON(t *testing.T) {
	store := detailStore(nested(2000))
	now := fixedNow
	m := sized(store, Options{Now: func() time.Time { return now }})
	m.openDetail(m.snap.FindCall("call_deep"))
	prev := m.detail.text
	for i := 1; i <= 5; i++ {
		store.Apply(model.Event{Time: at(i * 100), Source: model.SourceTap, SourceName: "local:7070", Kind: model.KindToolProgress,
			TaskID: taskA, ToolCallID: "call_deep", Exchange: "e1", Progress: float64(i)})
		now = now.Add(time.Second)
		send(m, frameMsg{})
		if m.detail.text == prev || !strings.Contains(m.detail.text, "sent") {
			t.Fatalf("frame %d: the detail did not follow the call", i)
		}
		prev = m.detail.text
	}
	if m.detail.jsonCache.built != 1 {
		t.Errorf("the arguments were rendered %d times", m.detail.jsonCache.built)
	}
	send(m, tea.WindowSizeMsg{Width: 100, Height: 40})
	if m.detail.jsonCache.built != 2 || !strings.Contains(m.detail.text, "nested deeper than") {
		t.Errorf("after a resize: rendered %d times", m.detail.jsonCache.built)
	}
}

// FuzzIndentJSON: on any valid JSON the lines are json.Indent's unless
// something was elided or too deep, and a bound never splits a character.
func FuzzIndentJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"é"}`, nested(40), `[""]`, `{"k":"` + strings.Repeat("€", 3000) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !json.Valid(src) {
			return
		}
		var out []string
		elided := false
		indentJSON(src, func(l *jsonLine) bool {
			out = append(out, string(l.text))
			elided = elided || l.deep > 0 || l.long > 0
			return true
		})
		got := strings.Join(out, "\n")
		if utf8.Valid(src) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from %q", src)
		}
		var want bytes.Buffer
		json.Indent(&want, src, "", "  ")
		if !elided && jsonNesting(src) <= maxJSONDepth && got != strings.TrimRight(want.String(), " \t\r\n") {
			t.Fatalf("%q:\n got %q\nwant %q", src, got, want.String())
		}
	})
}

// jsonNesting is how many containers deep valid JSON goes.
func jsonNesting(src []byte) int {
	level, most, inString := 0, 0, false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			level++
			most = max(most, level)
		case c == '}' || c == ']':
			level--
		}
	}
	return most
}
