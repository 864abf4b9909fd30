package tap

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStdioSideDropsOldestMarkingGaps: past its limit the queue drops its
// oldest chunk, and the next chunk of that direction, already queued or
// not, says bytes before it were lost (the gap mark went to the next
// chunk put, so a queued one was read as if it followed on).
func TestStdioSideDropsOldestMarkingGaps(t *testing.T) {
	s := newStdioSide(10)
	now := time.Now()
	s.put(fromClient, []byte("aaaa"), now)
	s.put(fromServer, []byte("bbbb"), now)
	s.put(fromClient, []byte("cc"), now)
	s.put(fromServer, []byte("dddd"), now) // drops "aaaa": "cc" follows a gap
	s.end()
	var got []string
	for {
		c, ok := s.next()
		if !ok {
			break
		}
		mark := ""
		if c.gap {
			mark = "^"
		}
		got = append(got, mark+string(c.data))
	}
	if strings.Join(got, ",") != "bbbb,^cc,dddd" {
		t.Fatalf("read %v", got)
	}
}

// TestStdioSideTrimKeepsNewest: trimmed (the child exited and the parser
// is still far behind), the queue keeps its newest bytes.
func TestStdioSideTrimKeepsNewest(t *testing.T) {
	s := newStdioSide(100)
	for _, b := range []string{"old1", "old2", "new1"} {
		s.put(fromServer, []byte(b), time.Now())
	}
	s.trim(4)
	s.end()
	c, ok := s.next()
	if !ok || string(c.data) != "new1" || !c.gap {
		t.Fatalf("first chunk %q gap=%v", c.data, c.gap)
	}
	if _, ok := s.next(); ok {
		t.Fatal("more than the newest chunk")
	}
}

// TestLineSplitter: lines across chunks, CRLF, an oversized line reported
// by its size and head, and a gap dropping the line it cut.
func TestLineSplitter(t *testing.T) {
	l := lineSplitter{max: 8}
	var got []string
	done := func(e lineEnd) {
		if e.line == nil {
			got = append(got, "over:"+string(e.head)+":"+strconv.FormatInt(e.size, 10))
			return
		}
		got = append(got, string(e.line))
	}
	l.feed([]byte("ab"), done)
	l.feed([]byte("c\r\n0123456789xyz\nde"), done)
	l.gap()
	l.feed([]byte("lost\nok\n"), done)
	if strings.Join(got, "|") != "abc|over:0123456789xyz:13|ok" {
		t.Fatalf("lines %q", got)
	}
}
