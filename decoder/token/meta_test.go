package token

import (
	"strings"
	"testing"

	"toolscope/model"
)

// TestMetadataBytesAsSent: metadata of exactly 4096 bytes of JSON holding
// < and & is within the limit (json.Marshal's HTML escaping counted 24536);
// one byte more is over it.
func TestMetadataBytesAsSent(t *testing.T) {
	for _, tc := range []struct {
		size int
		warn bool
	}{{4096, false}, {4097, true}} {
		fill := strings.Repeat("<&", tc.size)[:tc.size-len(`{"blob":""}`)]
		md := map[string]any{"blob": fill}
		if n := jsonBytes(md); n != tc.size {
			t.Fatalf("built %d bytes, want %d", n, tc.size)
		}
		var codes []string
		contractWarnings(map[string]any{"metadata": md}, nil, nil, func(code model.WarningCode, format string, args ...any) {
			codes = append(codes, string(code))
		})
		got := strings.Contains(strings.Join(codes, ","), "metadata_too_large")
		if got != tc.warn {
			t.Errorf("%d bytes: metadata_too_large=%v, want %v", tc.size, got, tc.warn)
		}
	}
}

// TestCallRuleWarningsPlainCall: a plain MCP call (no token, no agentarea
// keys) owes none of the platform's context rules.
