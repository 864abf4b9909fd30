package decoder

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"toolscope/model"
)

// badBlock marks a content element that is not a content block (already
// reported).
const badBlock = "\x00bad"

// wireResult is a CallToolResult with the parts read on their own kept raw.
type wireResult struct {
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           json.RawMessage `json:"isError"`
	Meta              json.RawMessage `json:"_meta"`
	ResultType        json.RawMessage `json:"resultType"`
}

// decodeResultFast reads a well-formed result in one pass when it has the
// common shape (a result can hold megabytes of base64 image data; each extra
// pass over it costs), else with encoding/json. ok is false when anything is
// off, and the slow path then says what.
func decodeResultFast(r []byte) (wireResult, []wireBlock, bool) {
	if w, blocks, ok := decodeResultOnePass(r); ok {
		return w, blocks, true
	}
	return decodeResultReflect(r)
}

// decodeResultSlow reads a result piece by piece, reporting each malformed
// part and keeping the rest. readable is false when r is not a JSON object.
func decodeResultSlow(r []byte, warn func(code model.WarningCode, format string, args ...any)) (wireResult, []wireBlock, bool) {
	var w struct {
		wireResult
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(r, &w); err != nil {
		warn(model.WarnResultMalformed, "tools/call result is unreadable: %v", err)
		return wireResult{}, nil, false
	}
	var raws []json.RawMessage
	if c := nonNull(w.Content); c != nil {
		if err := json.Unmarshal(c, &raws); err != nil {
			warn(model.WarnResultMalformed, "content is not an array")
		}
	} else {
		warn(model.WarnResultMalformed, "result has no content array")
	}
	blocks := make([]wireBlock, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &blocks[i]); err != nil {
			warn(model.WarnResultMalformed, "content[%d] is not a content block", i)
			blocks[i] = wireBlock{Type: badBlock}
		}
	}
	return w.wireResult, blocks, true
}

// spacedASCIIJSONLen is the length of compact JSON as Python's json.dumps
// writes it by default: a space after every ',' and ':' between values, and
// every non-ASCII character escaped (\uXXXX, or a surrogate pair). The
// platform's own serialisation is not specified, so toolscope drops by the
// compact length and warns when this longer reading crosses the limit.
func spacedASCIIJSONLen(compact []byte) int {
	n := 0
	inString, escaped := false, false
	for i := 0; i < len(compact); {
		c := compact[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(compact[i:])
			i += size
			if r > 0xFFFF {
				n += 12
			} else {
				n += 6
			}
			continue
		}
		i++
		n++
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			n++
		}
	}
	return n
}

// joinedText joins the text the model reads, one part per line. The common
// single-part result is kept as it is, without a copy.
type joinedText struct {
	first string
	parts int
	b     strings.Builder
}

func (t *joinedText) add(s string) {
	switch t.parts {
	case 0:
		t.first = s
	case 1:
		t.b.WriteString(t.first)
		fallthrough
	default:
		t.b.WriteByte('\n')
		t.b.WriteString(s)
	}
	t.parts++
}

func (t *joinedText) String() string {
	if t.parts <= 1 {
		return t.first
	}
	return t.b.String()
}

// compactJSON is raw without insignificant whitespace (raw itself when it
// cannot be compacted). json.Compact only ever removes whitespace outside
// strings, so JSON holding none is already compact and needs no copy.
func compactJSON(raw json.RawMessage) []byte {
	if !spaceOutsideStrings(raw) {
		return raw
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}

// spaceOutsideStrings says whether JSON text holds whitespace between its
// tokens (space in a string's text, "row name", is not).
func spaceOutsideStrings(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			return true
		case '"':
			end := endOfString(raw, i+1)
			if end < 0 {
				return bytes.IndexAny(raw[i:], " \t\n\r") >= 0 // unterminated: let json.Compact judge
			}
			i = end
		}
	}
	return false
}

// endOfString is the index of the quote closing the string whose text
// starts at raw[from], or -1.
func endOfString(raw []byte, from int) int {
	for j := from; j < len(raw); j++ {
		switch raw[j] {
		case '"':
			return j
		case '\\':
			j++
		}
	}
	return -1
}

// replayedFlag finds _meta["agentarea/replayed"] of a result; ok says it is
// present. A _meta that is not an object is reported through warn.
func replayedFlag(rawMeta json.RawMessage, warn func(code model.WarningCode, format string, args ...any)) (json.RawMessage, bool) {
	m := nonNull(rawMeta)
	if m == nil {
		return nil, false
	}
	if rep, found, ok := replayedOnePass(m); ok {
		return rep, found
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(m, &meta) != nil {
		warn(model.WarnResultMalformed, "_meta is not an object")
	}
	rep, ok := meta[MetaReplayed]
	return rep, ok
}

// replayedOnePass finds the replay flag in a _meta object of plain member
// names in one pass, as the map decode would (the last of repeated members
// counts); ok is false for anything else, left to encoding/json.
func replayedOnePass(m []byte) (rep json.RawMessage, found, ok bool) {
	rd := envelopeReader{s: m}
	ok = rd.members(func(key []byte) bool {
		start := rd.i
		if !rd.skipValue(0) {
			return false
		}
		if string(key) == MetaReplayed {
			rep, found = m[start:rd.i], true
		}
		return true
	}) && rd.end()
	if !ok {
		return nil, false, false
	}
	return rep, found, true
}
