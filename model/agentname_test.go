package model

import "testing"

// TestAgentNameRoundTrip: what AgentName joins SplitAgentName takes apart;
// a name without the mcp__ start or the second separator is no agent name.
func TestAgentNameRoundTrip(t *testing.T) {
	if got := AgentName("web", "crawl_site"); got != "mcp__web__crawl_site" {
		t.Fatalf("AgentName = %q", got)
	}
	for _, c := range []struct {
		name, server, tool string
		ok                 bool
	}{
		{"mcp__web__crawl_site", "web", "crawl_site", true},
		{"mcp__web__", "web", "", true},
		{"mcp__web", "", "", false},
		{"crawl_site", "", "", false},
	} {
		server, tool, ok := SplitAgentName(c.name)
		if server != c.server || tool != c.tool || ok != c.ok {
			t.Errorf("SplitAgentName(%q) = %q, %q, %v; want %q, %q, %v", c.name, server, tool, ok, c.server, c.tool, c.ok)
		}
	}
	if !HasAgentPrefix("mcp__web") || HasAgentPrefix("web") {
		t.Error("HasAgentPrefix")
	}
}
