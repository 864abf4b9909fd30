package decoder

import (
	"strings"
	"testing"
)

func TestQualifiedName(t *testing.T) {
	long := strings.Repeat("a", 70)
	cases := []struct {
		rule, instance, tool, want string
	}{
		{"ascii instance lowercased, each other char replaced, not collapsed", "My GitHub!", "get_order", "mcp__my_github___get_order"},
		{"ascii instance keeps dash and underscore", "Ops-Tools_2", "x", "mcp__ops-tools_2__x"},
		{"non-ascii: cyrillic transliterated, runs collapsed, trimmed", "Constractio — инструменты сметчика", "estimate", "mcp__constractio_instrumenty_smetchika__estimate"},
		{"non-ascii: accents dropped", "Café Müller", "menu", "mcp__cafe_muller__menu"},
		{"non-ascii: accents dropped beyond Latin-1 (Vietnamese)", "Công cụ Việt Đơn", "x", "mcp__cong_cu_viet_don__x"},
		{"non-ascii: nothing readable gives server", "工具", "run", "mcp__server__run"},
		{"non-ascii: leading and trailing runs trimmed", "  «Склад» ", "list", "mcp__sklad__list"},
		{"tool: chars outside the set replaced, case kept", "github", "Get Order.v2/é", "mcp__github__Get_Order_v2__"},
		{"empty instance name gives server", "", "t", "mcp__server__t"},
		{"over 64 is cut to 55 and ends with _ and the first 8 hex of sha256 of the whole name", strings.Repeat("a", 70), "tool",
			"mcp__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_6585ed52"},
		{"a long transliterated name is cut the same way", "Constractio — инструменты сметчика", "estimate_the_whole_building_with_all_floors",
			"mcp__constractio_instrumenty_smetchika__estimate_the_wh_c23eaef9"},
		{"ukrainian letters transliterated", "Інструменти Ґрунт", "x", "mcp__instrumenti_grunt__x"},
		{"soft and hard signs dropped without a separator", "Объём", "x", "mcp__obem__x"},
		{"mixed readable and CJK keeps the readable part", "Data 工具 Hub é", "x", "mcp__data_hub_e__x"},
		{"exactly 64 is kept", strings.Repeat("s", 64-len("mcp____t")), "t", "mcp__" + strings.Repeat("s", 56) + "__t"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			if got := QualifiedName(c.instance, c.tool); got != c.want {
				t.Fatalf("QualifiedName(%q, %q) = %q, want %q", c.instance, c.tool, got, c.want)
			}
		})
	}
	t.Run("over 64 is cut and ends with the sha256 digest", func(t *testing.T) {
		got := QualifiedName(long, "tool")
		if len(got) != 64 || !strings.HasPrefix(got, "mcp__aaaa") || got[55] != '_' {
			t.Fatalf("got %q (%d chars)", got, len(got))
		}
		if got != QualifiedName(long, "tool") || got == QualifiedName(long, "tool2") {
			t.Fatal("digest not stable or not distinct")
		}
	})
}
