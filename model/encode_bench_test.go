package model

import "testing"

// BenchmarkEncodeLine encodes the two events of a tap call, as the output
// writer does (issue 12): "oracle" is the reflective encoding it replaced,
// "append" the writer's path (AppendLine into a reused buffer).
func BenchmarkEncodeLine(b *testing.B) {
	r := NewRedactor()
	for _, c := range []struct {
		name string
		ev   Event
	}{{"call", realisticTapCall()}, {"result", realisticTapResult()}} {
		b.Run(c.name+"/oracle", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := oracleEncodeLine(r, c.ev); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.EncodeLine(c.ev); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/append", func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				var err error
				if buf, err = r.AppendLine(buf[:0], c.ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
