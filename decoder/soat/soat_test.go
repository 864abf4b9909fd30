package soat

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"toolscope/model"
)

func TestSoatPrefix(t *testing.T) {
	cases := []struct {
		rule, env, want string
		err             bool
	}{
		{"empty keeps the default", "", DefaultPrefix, false},
		{"a valid prefix replaces it", "X-Acme-Context-", "X-Acme-Context-", false},
		{"token characters are allowed", "X_Acme.Ctx!#$%&'*+^`|~-", "X_Acme.Ctx!#$%&'*+^`|~-", false},
		{"a space is invalid", "X Acme-", "", true},
		{"a colon is invalid", "X-Acme:", "", true},
		{"non-ASCII is invalid", "X-Ácme-", "", true},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			got, err := Prefix(c.env)
			if (err != nil) != c.err {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "TOOL_CONTEXT_HEADER_PREFIX") {
					t.Fatalf("the error does not name the variable: %v", err)
				}
				return
			}
			if got != c.want {
				t.Fatalf("got %q", got)
			}
		})
	}
}

func TestSoatContext(t *testing.T) {
	type want struct {
		values   map[string]string
		identity []string
		warnings []string
	}
	cases := []struct {
		rule   string
		prefix string
		header func() http.Header
		want   want
	}{
		{"canonicalised names: the key is the suffix as received", "", func() http.Header {
			h := http.Header{}
			h.Set("X-Soat-Context-tenantId", "acme") // Go makes this X-Soat-Context-Tenantid
			h.Set("Authorization", "Bearer x")
			return h
		}, want{values: map[string]string{"Tenantid": "acme"}}},
		{"HTTP/2 lowercase names match case-insensitively", "", func() http.Header {
			return http.Header{"x-soat-context-userid": {"u-1"}}
		}, want{values: map[string]string{"userid": "u-1"}}},
		{"names kept verbatim keep the key verbatim", "", func() http.Header {
			return http.Header{"X-Soat-Context-tenant_external_id": {"t-9"}, "X-Soat-Context-tenant.external.id": {"t-8"}}
		}, want{values: map[string]string{"tenant_external_id": "t-9", "tenant.external.id": "t-8"}}},
		{"a configured prefix replaces the default", "X-Acme-Context-", func() http.Header {
			return http.Header{"X-Acme-Context-plan": {"pro"}, "X-Soat-Context-plan": {"free"}}
		}, want{values: map[string]string{"plan": "pro"}}},
		{"the prefix alone is no key", "", func() http.Header {
			return http.Header{"X-Soat-Context-": {"x"}}
		}, want{}},
		{"identity keys are marked", "", func() http.Header {
			return http.Header{"X-Soat-Context-session_id": {"sess_01"}, "X-Soat-Context-actor_id": {"actor_01"},
				"X-Soat-Context-actor_external_id": {"ext-77"}, "X-Soat-Context-plan": {"pro"}}
		}, want{values: map[string]string{"session_id": "sess_01", "actor_id": "actor_01", "actor_external_id": "ext-77", "plan": "pro"},
			identity: []string{"actor_external_id", "actor_id", "session_id"}}},
		{"camelCase identity keys are marked", "", func() http.Header {
			return http.Header{"X-Soat-Context-sessionId": {"s"}, "X-Soat-Context-actorId": {"a"}, "X-Soat-Context-Actorexternalid": {"e"}}
		}, want{values: map[string]string{"sessionId": "s", "actorId": "a", "Actorexternalid": "e"},
			identity: []string{"Actorexternalid", "actorId", "sessionId"}}},
		{"pii_in_context: actor_external_id is an e-mail address", "", func() http.Header {
			return http.Header{"X-Soat-Context-actor_external_id": {"ana@example.com"}}
		}, want{values: map[string]string{"actor_external_id": "ana@example.com"}, identity: []string{"actor_external_id"}, warnings: []string{"pii_in_context"}}},
		{"pii_in_context: actor_external_id is a phone number", "", func() http.Header {
			return http.Header{"X-Soat-Context-actor_external_id": {"+5511999999999"}}
		}, want{values: map[string]string{"actor_external_id": "+5511999999999"}, identity: []string{"actor_external_id"}, warnings: []string{"pii_in_context"}}},
		{"pii_in_context: camelCase spelling too", "", func() http.Header {
			return http.Header{"x-soat-context-actorexternalid": {"(555) 123-4567"}}
		}, want{values: map[string]string{"actorexternalid": "(555) 123-4567"}, identity: []string{"actorexternalid"}, warnings: []string{"pii_in_context"}}},
		{"an e-mail in another key is not flagged", "", func() http.Header {
			return http.Header{"X-Soat-Context-contact": {"ana@example.com"}}
		}, want{values: map[string]string{"contact": "ana@example.com"}}},
		{"several values for one key warn and keep the first", "", func() http.Header {
			return http.Header{"X-Soat-Context-plan": {"pro", "free"}}
		}, want{values: map[string]string{"plan": "pro"}, warnings: []string{"duplicate_context_key"}}},
		{"two spellings folding into one header warn", "", func() http.Header {
			return http.Header{"X-Soat-Context-userId": {"a"}, "X-Soat-Context-UserId": {"b"}}
		}, want{values: map[string]string{"UserId": "b"}, warnings: []string{"duplicate_context_key"}}},
		{"a key with invalid header characters warns", "", func() http.Header {
			return http.Header{"X-Soat-Context-bad key": {"v"}}
		}, want{values: map[string]string{"bad key": "v"}, warnings: []string{"invalid_context_key"}}},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			bag, ws := Read(c.header(), c.prefix)
			if len(bag.Values) != len(c.want.values) {
				t.Fatalf("values %v, want %v", bag.Values, c.want.values)
			}
			for k, v := range c.want.values {
				if bag.Values[k] != v {
					t.Fatalf("values %v, want %v", bag.Values, c.want.values)
				}
			}
			var ids []string
			for k, ok := range bag.Identity {
				if ok {
					ids = append(ids, k)
				}
			}
			slices.Sort(ids)
			if strings.Join(ids, ",") != strings.Join(c.want.identity, ",") {
				t.Fatalf("identity %v, want %v", ids, c.want.identity)
			}
			var codes []string
			for _, w := range ws {
				codes = append(codes, string(w.Code))
				if strings.Contains(w.Message, "ana@example.com") || strings.Contains(w.Message, "5511999999999") {
					t.Fatalf("a warning repeats the personal data: %s", w.Message)
				}
			}
			if strings.Join(codes, ",") != strings.Join(c.want.warnings, ",") {
				t.Fatalf("warnings %v, want %v", ws, c.want.warnings)
			}
		})
	}
	t.Run("numeric ids are not phone numbers", func(t *testing.T) {
		if what := looksLikePII("12345678"); what != "" {
			t.Fatalf("flagged as %s", what)
		}
	})
}

func FuzzRead(f *testing.F) {
	f.Add("X-Soat-Context-actor_external_id", "ana@example.com", "", "x-soat-context-ActorExternalId", "+5511999999999")
	f.Add("X-Acme-Context-plan", "pro", "X-Acme-Context-", "Authorization", "Bearer x")
	f.Fuzz(func(t *testing.T, name1, value1, prefix, name2, value2 string) {
		h := http.Header{name1: {value1}}
		h[name2] = append(h[name2], value2)
		bag, ws := Read(h, prefix)
		p := prefix
		if p == "" {
			p = DefaultPrefix
		}
		for k, v := range bag.Values {
			found := false
			for name, vals := range h {
				if model.EqualFoldASCII(name, p+k) && len(name) == len(p)+len(k) && name[len(p):] == k && vals[0] == v {
					found = true
				}
			}
			if !found {
				t.Fatalf("key %q=%q not from the headers %v", k, v, h)
			}
		}
		for k := range bag.Identity {
			if _, ok := bag.Values[k]; !ok || soatIdentityKey(k) == "" {
				t.Fatalf("identity key %q", k)
			}
		}
		for _, w := range ws {
			if w.Code == "" {
				t.Fatal("empty warning code")
			}
		}
		if _, err := Prefix(prefix); err != nil && !strings.Contains(err.Error(), PrefixEnv) {
			t.Fatalf("prefix error does not name the variable: %v", err)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	h := http.Header{"X-Soat-Context-Session_id": {"sess_01"}, "X-Soat-Context-Actor_id": {"actor_01"},
		"X-Soat-Context-Actor_external_id": {"ext-1"}, "X-Soat-Context-Tenantid": {"acme"}, "Authorization": {"Bearer x"},
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	b.ReportAllocs()
	for b.Loop() {
		Read(h, DefaultPrefix)
	}
}
