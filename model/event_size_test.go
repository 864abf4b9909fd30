package model

import (
	"testing"
	"unsafe"
)

// An Event is copied into every call's timeline and every output's queue:
// within 704 bytes it takes that size class, past it the next (768).
func TestEventSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Event{}); n > 704 {
		t.Errorf("an Event is %d bytes, want at most 704", n)
	}
}
