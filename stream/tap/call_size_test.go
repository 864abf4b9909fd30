package tap

import (
	"testing"
	"unsafe"
)

// Every tools/call allocates one call: within 1024 bytes it takes that size
// class, past it the next (1152), 128 bytes more per call for the GC.
func TestCallSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(call{}); n > 1024 {
		t.Errorf("a call is %d bytes, want at most 1024", n)
	}
}
