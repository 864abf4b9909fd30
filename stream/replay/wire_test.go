package replay

import (
	"bytes"
	"context"
	"testing"
	"time"

	"toolscope/model"
	"toolscope/output"
)

// TestWireLinesTakeNoPartInTiming: a wire line, written when its exchange
// ended but dated when it began, neither waits nor makes the next event wait.
func TestWireLinesTakeNoPartInTiming(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	for _, e := range []model.Event{
		{Time: at, Source: model.SourceTap, SourceName: "tap", Kind: model.KindToolCall, ToolCallID: "c1", Tool: "t"},
		{Time: at.Add(-30 * time.Second), Source: model.SourceTap, SourceName: "tap", Kind: model.KindWire,
			Wire: &model.Wire{Transport: model.TransportStdio, From: "client", Message: &model.WireBody{Text: "{}", Size: 2}}},
		{Time: at.Add(200 * time.Millisecond), Source: model.SourceTap, SourceName: "tap", Kind: model.KindToolResult, ToolCallID: "c1", Tool: "t"},
	} {
		b.Write(output.EncodeLine(&e))
	}
	var kinds []model.Kind
	start := time.Now()
	err := Play(context.Background(), &b, Options{Speed: 1, Name: "r"}, model.SinkFunc(func(e model.Event) {
		if e.Source != model.SourceReplay {
			kinds = append(kinds, e.Kind)
		}
	}))
	took := time.Since(start)
	if err != nil || len(kinds) != 3 || kinds[1] != model.KindWire {
		t.Fatalf("played %v, %v", kinds, err)
	}
	if took > 3*time.Second {
		t.Errorf("the replay took %v: the wire line's date made it wait", took)
	}
}
