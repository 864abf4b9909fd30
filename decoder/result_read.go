package decoder

import (
	"encoding/json"
	"unicode/utf8"
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

// decodeResultFast reads a well-formed result in one pass (a result can hold
// megabytes of base64 image data; each extra pass over it costs). ok is
// false when anything is off, and the slow path then says what.
func decodeResultFast(r []byte) (wireResult, []wireBlock, bool) {
	var w struct {
		wireResult
		Content *[]wireBlock `json:"content"`
	}
	if err := json.Unmarshal(r, &w); err != nil || w.Content == nil {
		return wireResult{}, nil, false
	}
	return w.wireResult, *w.Content, true
}

// decodeResultSlow reads a result piece by piece, reporting each malformed
// part and keeping the rest. readable is false when r is not a JSON object.
func decodeResultSlow(r []byte, warn func(code, format string, args ...any)) (wireResult, []wireBlock, bool) {
	var w struct {
		wireResult
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(r, &w); err != nil {
		warn("result_malformed", "tools/call result is unreadable: %v", err)
		return wireResult{}, nil, false
	}
	var raws []json.RawMessage
	if c := nonNull(w.Content); c != nil {
		if err := json.Unmarshal(c, &raws); err != nil {
			warn("result_malformed", "content is not an array")
		}
	} else {
		warn("result_malformed", "result has no content array")
	}
	blocks := make([]wireBlock, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &blocks[i]); err != nil {
			warn("result_malformed", "content[%d] is not a content block", i)
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
