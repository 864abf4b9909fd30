package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/textproto"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The reflective encoding the hand-written encoder replaced (issue 12), kept
// as the oracle it must match byte for byte, errors included.

func oracleMarshal(e Event) ([]byte, error) {
	f := eventFields(e)
	f.Time = f.Time.UTC()
	b, err := json.Marshal(f)
	if err != nil || e.Kind != KindToolProgress {
		return b, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	buf.WriteString(`,"progress":`)
	buf.WriteString(strconv.FormatFloat(e.Progress, 'g', -1, 64))
	buf.WriteString(`,"total":`)
	if e.Total == nil {
		buf.WriteString("null")
	} else {
		buf.WriteString(strconv.FormatFloat(*e.Total, 'g', -1, 64))
	}
	buf.WriteString(`,"relayed":`)
	buf.WriteString(strconv.FormatBool(e.Relayed))
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func oracleEncodeLine(r Redactor, e Event) ([]byte, error) {
	b, err := oracleMarshal(oracleRedact(r, e))
	if err != nil {
		return nil, err
	}
	return append(oracleTerminalSafe(b), '\n'), nil
}

// oracleRedact is Redactor.Event as it was: the header map copied with
// every changed value.
func oracleRedact(r Redactor, e Event) Event {
	var out map[string]string
	for k, v := range e.Headers {
		if red := oracleHeader(r, k, v); red != v {
			if out == nil {
				out = make(map[string]string, len(e.Headers))
				for k2, v2 := range e.Headers {
					out[k2] = v2
				}
			}
			out[k] = red
		}
	}
	if out != nil {
		e.Headers = out
	}
	return e
}

func oracleHeader(r Redactor, name, value string) string {
	canon := textproto.CanonicalMIMEHeaderKey(name)
	if canon == canonicalContextHeader {
		i := strings.LastIndexByte(value, '.')
		if i < 0 || strings.Count(value, ".") != 2 {
			if value == "" {
				return ""
			}
			return Redacted
		}
		return value[:i+1] + Redacted
	}
	if !secretHeaders[canon] && !r.extra[canon] && !oracleCredentialLike(canon) {
		return value
	}
	if scheme, _, ok := strings.Cut(value, " "); ok && len(scheme) < 16 && value != "" {
		return scheme + " " + Redacted
	}
	return Redacted
}

func oracleTerminalSafe(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf && b[i] != 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				out = append(out, `\u007f`...)
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case unsafeForTerminal(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func oracleCredentialLike(canon string) bool {
	var buf [64]byte
	lower, ok := asciiLower(buf[:0], canon)
	if !ok {
		lower = []byte(strings.ToLower(canon))
	}
	for _, w := range credentialWords {
		if bytes.Contains(lower, []byte(w)) {
			return true
		}
	}
	return false
}
