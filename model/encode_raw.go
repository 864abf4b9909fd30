package model

import "encoding/json"

// appendRawJSON writes a json.RawMessage as encoding/json embeds one:
// compacted, with <, >, & and U+2028/U+2029 escaped. Invalid JSON is the
// error json.Marshal gives for it.
func appendRawJSON(dst, raw []byte) ([]byte, error) {
	if !json.Valid(raw) {
		return dst, marshalError(json.RawMessage(raw))
	}
	return appendCompactValid(dst, raw), nil
}

// appendCompactValid is encoding/json's compaction of valid JSON: whitespace
// outside strings goes, and inside them the characters it escapes for HTML
// and JavaScript become \u escapes. Already compact plain JSON is one copy.
func appendCompactValid(dst, src []byte) []byte {
	start := 0
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inString {
			switch c {
			case '"':
				inString = true
			case ' ', '\t', '\n', '\r':
				dst = append(dst, src[start:i]...)
				start = i + 1
			}
			continue
		}
		switch c {
		case '\\':
			i++ // the escaped byte is ASCII and never ends the string
		case '"':
			inString = false
		case '<', '>', '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case 0xE2:
			if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
				dst = append(dst, src[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xF])
				i += 2
				start = i + 1
			}
		}
	}
	return append(dst, src[start:]...)
}
