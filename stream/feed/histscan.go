package feed

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The history endpoint answers one JSON object per page whose "events" array
// may hold anything a server sends, a 256 MiB event included. A page is read
// as a stream: each item is kept only up to a limit (past it the item is
// skipped, byte by byte, without being held), so a page costs at most one
// item of memory at a time.

// pageScanner reads one history page from a body.
type pageScanner struct {
	r *bufio.Reader
}

// errNotObject: the page is not a JSON object.
var errNotObject = errors.New("the history page is not a JSON object")

// scanPage reads a page, calling item for each element of "events" (raw
// holds it when it is at most limit bytes; size is its length either way),
// and returns the page's has_next.
func scanPage(body io.Reader, limit int, item func(raw []byte, size int64) error) (hasNext bool, err error) {
	s := pageScanner{r: bufio.NewReaderSize(body, 64<<10)}
	if c, err := s.next(); err != nil || c != '{' {
		return false, errNotObject
	}
	if s.peekIs('}') {
		return false, nil
	}
	for {
		keyRaw, _, err := s.value(4 << 10)
		var key string
		if err != nil || json.Unmarshal(keyRaw, &key) != nil {
			return false, fmt.Errorf("history page: bad key: %v", err)
		}
		if c, err := s.next(); err != nil || c != ':' {
			return false, errors.New("history page: ':' expected")
		}
		switch key {
		case "events":
			if err := s.array(limit, item); err != nil {
				return false, err
			}
		case "has_next":
			raw, _, err := s.value(64)
			if err != nil {
				return false, err
			}
			json.Unmarshal(raw, &hasNext) // not a boolean: false, the safe end
		default:
			if _, _, err := s.value(0); err != nil {
				return false, err
			}
		}
		c, err := s.next()
		switch {
		case err != nil:
			return false, err
		case c == '}':
			return hasNext, nil
		case c != ',':
			return false, fmt.Errorf("history page: unexpected %q", c)
		}
	}
}

// array reads a JSON array (or null), handing each element to item.
func (s *pageScanner) array(limit int, item func(raw []byte, size int64) error) error {
	c, err := s.next()
	if err != nil {
		return err
	}
	if c == 'n' { // null
		for range 3 {
			s.r.ReadByte()
		}
		return nil
	}
	if c != '[' {
		return errors.New("history page: \"events\" is not an array")
	}
	if s.peekIs(']') {
		return nil
	}
	for {
		raw, size, err := s.value(limit)
		if err != nil {
			return err
		}
		if err := item(raw, size); err != nil {
			return err
		}
		c, err := s.next()
		switch {
		case err != nil:
			return err
		case c == ']':
			return nil
		case c != ',':
			return fmt.Errorf("history page: unexpected %q in \"events\"", c)
		}
	}
}

// next returns the next byte that is not white space.
func (s *pageScanner) next() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, noEOF(err)
		}
		if !isSpace(c) {
			return c, nil
		}
	}
}

// peekIs consumes the next non-space byte if it is c.
func (s *pageScanner) peekIs(c byte) bool {
	got, err := s.next()
	if err != nil {
		return false
	}
	if got != c {
		s.r.UnreadByte()
	}
	return got == c
}

// value reads one JSON value. It keeps at most limit bytes of it: raw is
// nil when the value is longer (its bytes are read and dropped). size is
// the value's length. Validity is left to json.Unmarshal of raw.
func (s *pageScanner) value(limit int) (raw []byte, size int64, err error) {
	if _, err := s.next(); err != nil {
		return nil, 0, err
	}
	s.r.UnreadByte()
	var buf []byte
	keep := true
	add := func(b []byte) {
		size += int64(len(b))
		if keep && size > int64(limit) {
			keep, buf = false, nil
		}
		if keep {
			buf = append(buf, b...)
		}
	}
	depth, inString, escaped := 0, false, false
	for {
		chunk, err := s.r.Peek(1)
		if err != nil {
			return nil, size, noEOF(err)
		}
		chunk, _ = s.r.Peek(s.r.Buffered())
		n, done := 0, false
		for n < len(chunk) && !done {
			b := chunk[n]
			switch {
			case inString:
				switch {
				case escaped:
					escaped = false
				case b == '\\':
					escaped = true
				case b == '"':
					inString = false
					done = depth == 0
				}
			case b == '"':
				inString = true
			case b == '{' || b == '[':
				depth++
			case b == '}' || b == ']':
				if depth == 0 {
					done = true // the end of the enclosing container: not ours
					continue
				}
				depth--
				done = depth == 0
			case depth == 0 && (b == ',' || isSpace(b)):
				done = true // a number or literal ended
				continue
			}
			n++
		}
		add(chunk[:n])
		s.r.Discard(n)
		if done {
			if keep {
				return buf, size, nil
			}
			return nil, size, nil
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// noEOF: a page that ends inside its JSON is cut short.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
