package decoder

import (
	"net/http"
	"strings"
	"testing"
)

func TestCheckMCPHeaders(t *testing.T) {
	stateless := "2026-07-28"
	full := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_order"}
	with := func(over map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range full {
			m[k] = v
		}
		for k, v := range over {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	cases := []struct {
		rule    string
		headers map[string]string
		meta    string
		want    string
	}{
		{"matching headers give no warning", full, stateless, ""},
		{"absent headers give no warning from a 2025-era client", nil, "", ""},
		{"2025-11-25 needs no Mcp-Method", map[string]string{"MCP-Protocol-Version": "2025-11-25"}, "", ""},
		{"protocol version mismatch warns", with(map[string]string{"MCP-Protocol-Version": "2025-11-25"}), stateless, "mcp_header_mismatch"},
		{"method mismatch warns", with(map[string]string{"Mcp-Method": "tools/list"}), stateless, "mcp_header_mismatch"},
		{"name mismatch warns", with(map[string]string{"Mcp-Name": "delete_order"}), stateless, "mcp_header_mismatch"},
		{"header names are case-insensitive", map[string]string{"mcp-protocol-version": "2026-07-28", "mcp-name": "delete_order", "MCP-METHOD": "ping"}, stateless, "mcp_header_mismatch,mcp_header_mismatch"},
		{"an unknown protocol version warns", map[string]string{"MCP-Protocol-Version": "2099-01-01"}, "", "mcp_protocol_version_unknown"},
		{"a 2026-07-28 request without Mcp-Method and Mcp-Name warns", map[string]string{"MCP-Protocol-Version": "2026-07-28"}, stateless, "mcp_header_missing"},
		{"_meta saying 2026-07-28 without the version header warns", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_order"}, stateless, "mcp_header_missing"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.headers {
				h.Set(k, v)
			}
			ws := CheckMCPHeaders(h, "tools/call", "get_order", c.meta)
			var codes []string
			for _, w := range ws {
				codes = append(codes, string(w.Code))
			}
			if strings.Join(codes, ",") != c.want {
				t.Fatalf("warnings %v, want %s", ws, c.want)
			}
		})
	}
}
