package decoder

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Every tools/call result the tap sees is read here. encoding/json scans it
// twice (a validity pass, then a reflective decode); the reader below reads
// the common CallToolResult shape in one pass: lowercase member names,
// content an array of objects with text, image or other plain blocks, and
// every value's JSON checked as encoding/json's validity pass does.
// Anything else (a member name differing only in case, a repeated member,
// a resource block, a value of an unexpected type, nesting past
// maxEnvelopeDepth, any syntax error) goes to encoding/json, so the answer
// is always exactly json.Unmarshal's (FuzzResultOnePass checks it).

// decodeResultOnePass reads r (trimmed, starting with '{') as
// decodeResultReflect would; ok is false outside the common shape. The raw
// members share r's bytes.
func decodeResultOnePass(r []byte) (w wireResult, blocks []wireBlock, ok bool) {
	rd := envelopeReader{s: r}
	var seen uint8
	hasContent := false
	whole := rd.members(func(key []byte) bool {
		start := rd.i
		var bit uint8
		switch string(key) {
		case "content":
			bit = 1
			if blocks, ok = rd.contentBlocks(); !ok {
				return false
			}
			hasContent = true
		case "structuredContent", "isError", "_meta", "resultType":
			if !rd.skipValue(0) {
				return false
			}
			bit = w.setRaw(string(key), r[start:rd.i])
		default:
			if !rd.skipValue(0) || foldsToAny(key, resultMembers[:]) {
				return false
			}
		}
		if seen&bit != 0 {
			return false // repeated: encoding/json's merging is not redone here
		}
		seen |= bit
		return true
	})
	if !whole {
		return w, nil, false
	}
	return w, blocks, hasContent && rd.end()
}

var resultMembers = [...]string{"content", "structuredContent", "isError", "_meta", "resultType"}

// setRaw stores a raw member (the switch in decodeResultOnePass names the
// four) and returns its bit among the members seen.
func (w *wireResult) setRaw(key string, v []byte) uint8 {
	switch key {
	case "structuredContent":
		w.StructuredContent = v
		return 2
	case "isError":
		w.IsError = v
		return 4
	case "_meta":
		w.Meta = v
		return 8
	default:
		w.ResultType = v
		return 16
	}
}

// contentBlocks reads the content array; false unless it is an array of
// plain blocks.
func (rd *envelopeReader) contentBlocks() ([]wireBlock, bool) {
	if !rd.at('[') {
		return nil, false
	}
	rd.i++
	blocks := []wireBlock{}
	for first := true; ; first = false {
		rd.space()
		if first && rd.at(']') {
			break
		}
		b, ok := rd.contentBlock()
		if !ok {
			return nil, false
		}
		blocks = append(blocks, b)
		if !rd.next() {
			break
		}
	}
	if !rd.at(']') {
		return nil, false
	}
	rd.i++
	return blocks, true
}

var blockMembers = [...]string{"type", "text", "data", "mimeType", "resource"}

// contentBlock reads one block object without a resource member.
func (rd *envelopeReader) contentBlock() (b wireBlock, ok bool) {
	var seen uint8
	ok = rd.members(func(key []byte) bool {
		var bit uint8
		ok := false
		switch string(key) {
		case "type":
			bit, ok = 1, rd.stringInto(&b.Type, true)
		case "text":
			bit, ok = 2, rd.stringPointer(&b.Text)
		case "data":
			bit, ok = 4, rd.stringPointer(&b.Data)
		case "mimeType":
			bit, ok = 8, rd.stringInto(&b.MimeType, false)
		default:
			ok = rd.skipValue(1) && !foldsToAny(key, blockMembers[:])
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	return b, ok
}

// members reads an object whose member names are plain (printable ASCII, no
// escapes): member gets each name with the reader at its value, which it
// must read (false ends the object as unreadable here). False for anything
// but a whole object; the reader is then past its '}'.
func (rd *envelopeReader) members(member func(key []byte) bool) bool {
	if !rd.at('{') {
		return false
	}
	rd.i++
	for first := true; ; first = false {
		rd.space()
		if first && rd.at('}') {
			break
		}
		key, ok := rd.plainKey()
		if !ok || !rd.colon() || !member(key) {
			return false
		}
		if !rd.next() {
			break
		}
	}
	if !rd.at('}') {
		return false
	}
	rd.i++
	return true
}

// next passes a ',' (true), or stops at what follows the member or element
// (false): the caller checks it closes the container.
func (rd *envelopeReader) next() bool {
	rd.space()
	if rd.at(',') {
		rd.i++
		return true
	}
	return false
}

// plainKey reads a member name of printable ASCII without escapes, as a
// slice of the input (no copy).
func (rd *envelopeReader) plainKey() ([]byte, bool) {
	if !rd.at('"') {
		return nil, false
	}
	for j := rd.i + 1; j < len(rd.s); j++ {
		switch c := rd.s[j]; {
		case c == '"':
			key := rd.s[rd.i+1 : j]
			rd.i = j + 1
			return key, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

func (rd *envelopeReader) colon() bool {
	rd.space()
	if !rd.at(':') {
		return false
	}
	rd.i++
	rd.space()
	return true
}

// foldsToAny says whether key matches one of names regardless of case, as
// encoding/json would match it (plainKey's keys are ASCII).
func foldsToAny(key []byte, names []string) bool {
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return true
		}
	}
	return false
}

// stringInto reads a string (null leaves dst as it is, as encoding/json
// does); false for any other value.
func (rd *envelopeReader) stringInto(dst *string, intern bool) bool {
	if rd.null() {
		return true
	}
	s, ok := rd.stringValue(intern)
	if ok {
		*dst = s
	}
	return ok
}

// stringPointer reads a string into a new *string, or null into nil.
func (rd *envelopeReader) stringPointer(dst **string) bool {
	if rd.null() {
		*dst = nil
		return true
	}
	s, ok := rd.stringValue(false)
	if ok {
		*dst = &s
	}
	return ok
}

func (rd *envelopeReader) null() bool {
	if len(rd.s)-rd.i >= 4 && string(rd.s[rd.i:rd.i+4]) == "null" {
		rd.i += 4
		return true
	}
	return false
}

// stringValue reads a JSON string as encoding/json decodes it into a Go
// string: escapes resolved, invalid UTF-8 and lone surrogates replaced by
// U+FFFD. intern returns the common block type names without a copy.
func (rd *envelopeReader) stringValue(intern bool) (string, bool) {
	if !rd.at('"') {
		return "", false
	}
	start := rd.i
	if body, ok := rd.plainStringBody(); ok {
		return internedType(body, intern), true
	}
	if !rd.skipString() {
		return "", false
	}
	return unquoteJSON(rd.s[start+1 : rd.i-1]), true
}

// plainStringBody reads, at a '"', a string of printable ASCII without
// escapes (base64 image data, most text) a word at a time; false leaves
// the reader where it was.
func (rd *envelopeReader) plainStringBody() ([]byte, bool) {
	end := bytes.IndexByte(rd.s[rd.i+1:], '"')
	if end < 0 {
		return nil, false
	}
	body := rd.s[rd.i+1 : rd.i+1+end]
	if bytes.IndexByte(body, '\\') >= 0 || !printableASCII(body) {
		return nil, false
	}
	rd.i += end + 2
	return body, true
}

// printableASCII says whether every byte of b is in 0x20..0x7f.
func printableASCII(b []byte) bool {
	const high, space = 0x8080808080808080, 0x2020202020202020
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		// A byte under 0x20 (its high bit clear) borrows into its high bit.
		if (w|(w-space)&^w)&high != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

// internedType is a plain string's body as a string: the common block
// types without a copy when intern is set.
func internedType(body []byte, intern bool) string {
	if !intern {
		return string(body)
	}
	switch string(body) {
	case "text":
		return "text"
	case "image":
		return "image"
	case "resource":
		return "resource"
	}
	return string(body)
}

// unquoteJSON resolves the escapes of a string's body that skipString has
// checked, the way encoding/json's unquote does.
func unquoteJSON(s []byte) string {
	plain := 0
	for plain < len(s) && s[plain] != '\\' && s[plain] < utf8.RuneSelf {
		plain++
	}
	if plain == len(s) {
		return string(s)
	}
	if strings.IndexByte(string(s[plain:]), '\\') < 0 && utf8.Valid(s[plain:]) {
		return string(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	b.Write(s[:plain])
	for r := plain; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			r = unescapeAt(&b, s, r)
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b.WriteRune(rr) // utf8.RuneError for an invalid byte, as encoding/json writes
			r += size
		}
	}
	return b.String()
}

// unescapeAt writes the escape at s[r] (a checked one) and returns where the
// next character starts.
func unescapeAt(b *strings.Builder, s []byte, r int) int {
	switch c := s[r+1]; c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		rr, _ := hex4(s, r+2) // checked by skipString
		r += 6
		if utf16.IsSurrogate(rr) {
			if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
				low, _ := hex4(s, r+2)
				if dec := utf16.DecodeRune(rr, low); dec != unicode.ReplacementChar {
					b.WriteRune(dec)
					return r + 6
				}
			}
			rr = unicode.ReplacementChar
		}
		b.WriteRune(rr)
		return r
	default: // '"', '\\', '/'
		b.WriteByte(c)
	}
	return r + 2
}

// decodeResultReflect is decodeResultOnePass's answer as encoding/json gives
// it, for the results outside the one-pass reader's shape.
func decodeResultReflect(r []byte) (wireResult, []wireBlock, bool) {
	var w struct {
		wireResult
		Content *[]wireBlock `json:"content"`
	}
	if err := json.Unmarshal(r, &w); err != nil || w.Content == nil {
		return wireResult{}, nil, false
	}
	return w.wireResult, *w.Content, true
}
