package model_test

import (
	"testing"

	"toolscope/model"
	"toolscope/model/modeltest"
)

// BenchmarkRedactEvent: the policy over a tap's tool.call (a credential,
// a token, claims, _meta, arguments) and its tool.result, as the hub runs
// it on every event.
func BenchmarkRedactEvent(b *testing.B) {
	r := model.NewRedactor(model.RedactionConfig{Secrets: []string{"context-secret-0123456789-abcdef"}})
	for _, c := range []struct {
		name string
		ev   model.Event
	}{{"call", modeltest.TapCall()}, {"result", modeltest.TapResult()}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Event(c.ev)
			}
		})
	}
}
