package model

import (
	"strings"
	"testing"
)

// The known names' verdicts are the ones every other name gets, whatever
// this run was told is a credential, and whatever the spelling.
func TestKnownHeadersJudgedAsAnyName(t *testing.T) {
	values := []string{"", "x", "Bearer abc", "a.b.c", "a.b", "verylongschemename x"}
	var names []string
	for n := range knownHeaders {
		names = append(names, n, strings.ToLower(n), strings.ToUpper(n))
	}
	for _, r := range []Redactor{{}, NewRedactor(), NewRedactor("accept", "MCP-SESSION-ID", "x-custom")} {
		for _, n := range names {
			for _, v := range values {
				gk, gr := r.headerRedaction(n, v)
				wk, wr := r.anyHeaderRedaction(n, v)
				if gk != wk || gr != wr {
					t.Errorf("headerRedaction(%q, %q) = %d, %v; want %d, %v", n, v, gk, gr, wk, wr)
				}
			}
		}
	}
}
