package decoder

import "testing"

// BenchmarkParseProgress: one notifications/progress params, as an SSE
// stream of progress brings them.
func BenchmarkParseProgress(b *testing.B) {
	params := []byte(`{"progressToken":3,"progress":5,"total":23,"message":"step 5 of 23"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseProgress(params); err != nil {
			b.Fatal(err)
		}
	}
}
