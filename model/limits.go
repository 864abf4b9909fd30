package model

// What an event keeps of a result however large it is: a preview of its
// text, and its structured content up to a size (one result must not bloat
// the store or a recording).
const (
	PreviewChars           = 2000
	MaxKeptStructuredBytes = 64 << 10
)
