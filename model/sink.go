package model

// Sink takes events. Sources emit into a Sink; they never touch the store
// directly, so output and recording see exactly what the store applied.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }
