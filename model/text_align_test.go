package model

import (
	"strings"
	"testing"
)

// TestTextLineColumnsAlign: the kind column starts at the same place for
// every source kind and for names as long as the demo's.
func TestTextLineColumnsAlign(t *testing.T) {
	col := -1
	for _, e := range []Event{
		{Time: t0, Source: SourceTap, SourceName: "tap", Kind: KindSourceStatus},
		{Time: t0, Source: SourceFeed, SourceName: "feed:invoice-audit", Kind: KindSourceStatus},
		{Time: t0, Source: SourceReplay, SourceName: "session.jsonl", Kind: KindSourceStatus},
	} {
		i := strings.Index(TextLine(e), string(KindSourceStatus))
		if col >= 0 && i != col {
			t.Errorf("%s %s: kind at column %d, want %d", e.Source, e.SourceName, i, col)
		}
		col = i
	}
}
