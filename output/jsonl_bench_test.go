package output_test

import (
	"encoding/json"
	"testing"

	"toolscope/model"
	"toolscope/model/modeltest"
	"toolscope/output"
)

// BenchmarkEncodeLine encodes a tap call's two events as the writers get
// them (redacted by the hub): "jsontext" is the encoder the writers use,
// "encoding-json" the reflective encoding of the same struct with the
// same terminal-safe pass, for comparison (it does not write the progress
// fields a tool.progress always carries, which these events are not).
func BenchmarkEncodeLine(b *testing.B) {
	r := model.NewRedactor(model.RedactionConfig{})
	for _, c := range []struct {
		name string
		ev   model.Event
	}{{"call", r.Event(modeltest.TapCall())}, {"result", r.Event(modeltest.TapResult())}} {
		b.Run(c.name+"/jsontext", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				output.EncodeLine(&c.ev)
			}
		})
		b.Run(c.name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				line, err := json.Marshal(&c.ev)
				if err != nil {
					b.Fatal(err)
				}
				_ = append(model.TerminalSafeJSON(line), '\n')
			}
		})
	}
}
