package decoder_test

import (
	"fmt"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
)

func ExampleQualifiedName() {
	fmt.Println(decoder.QualifiedName("My GitHub!", "get_order"))
	fmt.Println(decoder.QualifiedName("Constractio — инструменты сметчика", "estimate"))
	fmt.Println(decoder.QualifiedName("工具", "run"))
	// Output:
	// mcp__my_github___get_order
	// mcp__constractio_instrumenty_smetchika__estimate
	// mcp__server__run
}

func ExampleSummarizeResult() {
	body := jsonrpc.Read([]byte(`{"jsonrpc": "2.0", "id": 3, "result": {
		"content": [{"type": "text", "text": "3 orders"},
		            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg=="}],
		"structuredContent": {"orders": ["A-17", "A-18", "A-19"]},
		"_meta": {"agentarea/replayed": true}}}`))
	s, warnings := decoder.SummarizeResult(body.Messages[0].Summary, true)
	fmt.Println(s.TextChars, s.Offloaded, s.Images[0].MimeType, s.Images[0].Size, s.StructuredContentBytes, s.Replayed, s.ResultType, len(warnings))
	// Output: 8 false image/png 16 33 true complete 0
}

func ExampleRelaySimulator() {
	var r decoder.RelaySimulator
	total := 10.0
	start := mustTime("2026-11-30T12:00:00Z")
	for i, ms := range []int{0, 100, 600, 650} {
		p := jsonrpc.Progress{Progress: float64(i + 1), Total: &total}
		fmt.Print(r.Relay(start.Add(msDuration(ms)), p), " ")
	}
	// Output: true false true false
}
