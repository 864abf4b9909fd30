package ui

// The detail view shows at most maxJSONLines lines of a JSON value, so it
// indents lazily: one line at a time, stopping when the view has enough.
// Indenting all of it first (json.Indent) costs the square of the depth:
// 18 KB nested 9,000 levels deep became 2.7 GB of spaces.

const (
	// maxJSONDepth levels are indented; a deeper container is written
	// compactly on its parent's line.
	maxJSONDepth = 32
	// maxCompactBytes of such a container are shown, the rest elided.
	maxCompactBytes = 240
	// maxJSONLineBytes of one line (a long string) are shown, the rest elided.
	maxJSONLineBytes = 8 << 10
)

// jsonLine is one indented line, raw (not yet sanitized).
type jsonLine struct {
	text  []byte // valid only during the emit call
	depth int    // indentation level
	deep  int    // bytes elided from a container deeper than maxJSONDepth
	long  int    // bytes elided past maxJSONLineBytes
}

// indentJSON calls emit with each line of src, valid JSON, indented by two
// spaces a level as json.Indent writes it, until emit returns false. It
// returns the offset in src where it stopped: len(src) when it wrote all.
func indentJSON(src []byte, emit func(*jsonLine) bool) int {
	j := jsonIndenter{src: src, emit: emit}
	return j.run()
}

type jsonIndenter struct {
	src        []byte
	i          int
	depth      int
	needIndent bool // after { or [, before the first member
	line       jsonLine
	buf        []byte
	full       bool // the line reached maxJSONLineBytes
	stopped    bool
	emit       func(*jsonLine) bool
}

func (j *jsonIndenter) run() int {
	for j.i < len(j.src) && !j.stopped {
		c := j.src[j.i]
		if isJSONSpace(c) {
			j.i++
			continue
		}
		if j.needIndent && c != ']' && c != '}' {
			j.needIndent = false
			j.depth++
			if !j.newline() {
				break
			}
		}
		switch c {
		case '"':
			j.str()
		case '{', '[':
			if j.depth >= maxJSONDepth {
				j.compact()
				continue
			}
			j.put(c)
			j.i++
			j.needIndent = true
		case ',':
			j.put(c)
			j.i++
			j.newline()
		case ':':
			j.put(c)
			j.put(' ')
			j.i++
		case '}', ']':
			if j.needIndent {
				j.needIndent = false // an empty container stays on one line
			} else {
				j.depth--
				if !j.newline() {
					return j.i
				}
			}
			j.put(c)
			j.i++
		default: // numbers, true, false, null
			j.put(c)
			j.i++
		}
	}
	if !j.stopped && len(j.buf) > 0 {
		j.flush()
	}
	return j.i
}

// newline hands the current line over and starts the next one indented.
func (j *jsonIndenter) newline() bool {
	if !j.flush() {
		return false
	}
	for range j.depth {
		j.buf = append(j.buf, ' ', ' ')
	}
	j.line.depth = j.depth
	return true
}

func (j *jsonIndenter) flush() bool {
	j.line.text = j.buf
	if !j.emit(&j.line) {
		j.stopped = true
		return false
	}
	j.buf = j.buf[:0]
	j.line = jsonLine{}
	j.full = false
	return true
}

// put appends one byte unless the line is full; a character begun below the
// bound is finished (at most 3 continuation bytes) so no UTF-8 is split.
func (j *jsonIndenter) put(c byte) {
	if !j.full && (len(j.buf) < maxJSONLineBytes || (c&0xC0 == 0x80 && len(j.buf) < maxJSONLineBytes+3)) {
		j.buf = append(j.buf, c)
		return
	}
	j.full = true
	j.line.long++
}

// str copies a string token, escapes included, j.i on its opening quote.
func (j *jsonIndenter) str() {
	j.put('"')
	j.i++
	for j.i < len(j.src) {
		c := j.src[j.i]
		j.put(c)
		j.i++
		switch c {
		case '\\':
			if j.i < len(j.src) {
				j.put(j.src[j.i])
				j.i++
			}
		case '"':
			return
		}
	}
}

// compact writes a too-deep container on the current line without
// whitespace, at most maxCompactBytes of it (ending on a character
// boundary, then …), and skips to its end.
func (j *jsonIndenter) compact() {
	shown, level, inString, cut := 0, 0, false, false
	for j.i < len(j.src) {
		c := j.src[j.i]
		j.i++
		switch {
		case inString:
			if c == '\\' && j.i < len(j.src) {
				shown, cut = j.compactPut(c, shown, cut)
				c = j.src[j.i]
				j.i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			level++
		case c == '}' || c == ']':
			level--
		case isJSONSpace(c):
			continue
		}
		shown, cut = j.compactPut(c, shown, cut)
		if level == 0 && !inString {
			return
		}
	}
}

func (j *jsonIndenter) compactPut(c byte, shown int, cut bool) (int, bool) {
	if !cut && (shown < maxCompactBytes || (c&0xC0 == 0x80 && shown < maxCompactBytes+3)) {
		j.put(c)
		return shown + 1, false
	}
	if !cut {
		for _, b := range []byte("…") {
			j.put(b)
		}
	}
	j.line.deep++
	return shown, true
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
