package decoder

import (
	"reflect"
	"testing"

	"toolscope/model"
)

// ApplyResult fills an event exactly as SummarizeResult then ApplyTo do.
func TestApplyResultMatchesSummary(t *testing.T) {
	cases := append([]string{
		`{"content":[{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="},{"type":"image","mimeType":"image/bmp","data":"Qk0="}],"isError":true}`,
		`{"content":[],"structuredContent":{"a":[1,2,3]},"resultType":"input_required"}`,
		`not json`,
	}, resultCases...)
	for _, c := range cases {
		var want, got model.Event
		s, wantWarnings := SummarizeResult([]byte(c))
		s.ApplyTo(&want)
		gotWarnings := ApplyResult(&got, []byte(c))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotWarnings, wantWarnings) {
			t.Errorf("%s:\nApplyResult %+v %v\nSummarizeResult+ApplyTo %+v %v", c, got, gotWarnings, want, wantWarnings)
		}
	}
}
