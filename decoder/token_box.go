package decoder

import "unsafe"

// Boxing a string or a float64 as an interface value copies it to the heap,
// one allocation per value. The quick reader boxes all of an object's
// strings (and numbers) from one slice instead, each interface value
// pointing at its element, as the runtime's own boxing points at its copy.
// The slice is never written after its elements are boxed, so the values
// stay as immutable as boxed ones; the garbage collector keeps the slice
// while any of them is referenced.

// emptyInterface is the runtime's layout of an interface value (any).
type emptyInterface struct {
	typ, word unsafe.Pointer
}

var (
	stringTypeWord  = typeWordOf("")
	float64TypeWord = typeWordOf(float64(0))
)

func typeWordOf(v any) unsafe.Pointer { return (*emptyInterface)(unsafe.Pointer(&v)).typ }

// boxedString is any(*p) without copying *p: *p must never change.
func boxedString(p *string) (v any) {
	e := (*emptyInterface)(unsafe.Pointer(&v))
	e.typ, e.word = stringTypeWord, unsafe.Pointer(p)
	return v
}

// boxedFloat64 is any(*p) without copying *p: *p must never change.
func boxedFloat64(p *float64) (v any) {
	e := (*emptyInterface)(unsafe.Pointer(&v))
	e.typ, e.word = float64TypeWord, unsafe.Pointer(p)
	return v
}
