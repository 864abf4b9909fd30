package decoder

import (
	"strings"
	"testing"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

func TestUndeclaredInputs(t *testing.T) {
	asked := []model.InputRequest{{ID: "confirm", Method: model.InputElicit}, {ID: "draft", Method: model.InputSample}, {ID: "where", Method: model.InputRoots}}
	if ws := UndeclaredInputs(asked, nil); ws != nil {
		t.Fatalf("no capabilities declared (an earlier revision): nothing to judge, got %v", ws)
	}
	if ws := UndeclaredInputs(asked, &jsonrpc.ClientCapabilities{Elicitation: true, Sampling: true, Roots: true}); ws != nil {
		t.Fatalf("all declared: %v", ws)
	}
	ws := UndeclaredInputs(asked, &jsonrpc.ClientCapabilities{Elicitation: true})
	if len(ws) != 1 || ws[0].Code != model.WarnInputCapabilityUndeclared ||
		!strings.Contains(ws[0].Message, `"draft" needs sampling, "where" needs roots`) || strings.Contains(ws[0].Message, "confirm") ||
		!strings.Contains(ws[0].Message, "-32021") {
		t.Fatalf("%v", ws)
	}
}

func TestRoundAnswers(t *testing.T) {
	if ws := RoundAnswers([]string{"a", "b"}, []string{"b", "a"}); ws != nil {
		t.Fatalf("every request answered: %v", ws)
	}
	if ws := RoundAnswers([]string{}, nil); ws != nil {
		t.Fatalf("nothing asked (a server shedding load), nothing answered: %v", ws)
	}
	ws := RoundAnswers([]string{"a", "b\x1b[31m"}, []string{"a", "z"})
	if len(ws) != 1 || ws[0].Code != model.WarnInputResponsesMismatch ||
		!strings.Contains(ws[0].Message, "asked and not answered: \"b") || !strings.Contains(ws[0].Message, `answers to no request: "z"`) ||
		strings.Contains(ws[0].Message, "\x1b") {
		t.Fatalf("%q", ws)
	}
	many := strings.Split("k1 k2 k3 k4 k5 k6 k7", " ")
	if ws := RoundAnswers(nil, many); len(ws) != 1 || !strings.Contains(ws[0].Message, `"k5" and 2 more`) {
		t.Fatalf("bounded: %v", ws)
	}
	if ws := RoundAnswers([]string{strings.Repeat("x", 500)}, nil); len(ws[0].Message) > 300 {
		t.Fatalf("a long key is cut: %d bytes", len(ws[0].Message))
	}
}
