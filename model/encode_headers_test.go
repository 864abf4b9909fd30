package model

import (
	"net/textproto"
	"strings"
	"testing"
)

// slowHeaderRedaction is headerRedaction without the table of known names.
func slowHeaderRedaction(r Redactor, name, value string) (int, bool) {
	canon := textproto.CanonicalMIMEHeaderKey(name)
	if canon == canonicalContextHeader {
		return tokenRedaction(value)
	}
	if !r.isSecretCanonical(canon) {
		return 0, false
	}
	if scheme, _, ok := strings.Cut(value, " "); ok && len(scheme) < 16 && value != "" {
		return len(scheme) + 1, true
	}
	return 0, true
}

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
				wk, wr := slowHeaderRedaction(r, n, v)
				if gk != wk || gr != wr {
					t.Errorf("headerRedaction(%q, %q) = %d, %v; want %d, %v", n, v, gk, gr, wk, wr)
				}
			}
		}
	}
}
