package model

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func TestCredentialNames(t *testing.T) {
	credentials := []string{
		"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "x-apikey", "X-Auth-Token", "X-Access-Token",
		"Private-Token", "Cookie", "Set-Cookie", "X-Hub-Signature-256", "X-To\u212aen", "X-TOKEN", "X-ToKen",
		"api_key", "apiKey", "ApiKey", "access_token", "accessToken", "password", "userPassword", "db_passwd", "pwd",
		"passphrase", "jwt", "id_jwt", "private_key", "privateKey", "client_secret", "clientSecret", "secret",
		"credentials", "oauth", "X-Soat-Context-ocaToken", "ocaToken", "key", "KEY", "pass", "sig", "secretKey",
		"aws_secret_access_key", "bearer", "X-Csrftoken",
	}
	for _, n := range credentials {
		if !(*Redactor)(nil).IsCredentialName(n) {
			t.Errorf("%q is not judged a credential", n)
		}
	}
	plain := []string{
		"idempotency_key", "agentarea/idempotency_key", "Idempotency-Key", "Sec-Websocket-Key", "progressToken",
		"token_type", "max_tokens", "input_tokens", "author", "Authority", "Mcp-Session-Id", "Content-Type",
		"monkey", "passenger", "tokenizer", "keyboard", "X-Agentarea-Context", "orderId", "",
	}
	for _, n := range plain {
		if (*Redactor)(nil).IsCredentialName(n) {
			t.Errorf("%q is judged a credential", n)
		}
	}
	r := NewRedactor(RedactionConfig{Names: []string{"ssn", "X-Instance-Pass", "customer_id"}})
	for _, n := range []string{"ssn", "user_ssn", "X-Instance-Pass", "x-instance-pass", "customerId", "customer_id"} {
		if !r.IsCredentialName(n) {
			t.Errorf("--redact: %q is not judged a credential", n)
		}
	}
}

func TestRedactText(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
	cases := map[string]string{
		"plain text": "plain text",
		`Post "http://user:PW@host/mcp?api_key=K&x=1": dial tcp: refused`: `Post "http://user:[redacted]@host/mcp?api_key=[redacted]&x=1": dial tcp: refused`,
		"postgresql://dbuser:PASSWORD@localhost:5432/orders":              "postgresql://dbuser:[redacted]@localhost:5432/orders",
		"https://ghp_0123456789@github.com/o/r.git":                       "https://[redacted]@github.com/o/r.git",
		"see https://x.example/cb#access_token=AT123&state=s":             "see https://x.example/cb#access_token=[redacted]&state=s",
		"http://h/p?token=&q=1":                                           "http://h/p?token=&q=1",
		"got token " + jwt + " here":                                      "got token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.[redacted] here",
		"http://user:***@host/":                                           "http://user:[redacted]@host/",
		"ratio 3://not a url":                                             "ratio 3://not a url",
	}
	for in, want := range cases {
		if got := RedactText(in); got != want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", in, got, want)
		}
	}
	u, _ := url.Parse("https://u:p@api.example/feed?api_key=K&page=2")
	if got := RedactURL(u); got != "https://u:[redacted]@api.example/feed?api_key=[redacted]&page=2" {
		t.Errorf("RedactURL = %q", got)
	}
}

func TestRedactArgs(t *testing.T) {
	in := []string{"server", "postgresql://dbuser:PASSWORD@localhost:5432/orders", "--api-key=KEY1", "--token", "KEY2",
		"-password=KEY3", "API_KEY=KEY4", "--verbose", "--port", "8080", "--key", "KEY5", "--name=orders"}
	got := strings.Join(RedactArgs(in), " ")
	want := "server postgresql://dbuser:[redacted]@localhost:5432/orders --api-key=[redacted] --token [redacted] " +
		"-password=[redacted] API_KEY=[redacted] --verbose --port 8080 --key [redacted] --name=orders"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestRedactHeader(t *testing.T) {
	token := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
	cases := []struct{ name, in, want string }{
		{"Authorization", "Bearer sk-live-1", "Bearer [redacted]"},
		{"Authorization", "correct horse battery", "[redacted]"},
		{"X-Api-Key", "k-999", "[redacted]"},
		{"X-AgentArea-Context", token, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.[redacted]"},
		{"x-agentarea-context", "not-a-jws", "[redacted]"},
		{"Referer", "https://a.example/?token=T", "https://a.example/?token=[redacted]"},
		{"Mcp-Session-Id", "s-1", "s-1"},
		{"Authorization", "", ""},
	}
	for _, c := range cases {
		if got := RedactHeader(c.name, c.in); got != c.want {
			t.Errorf("RedactHeader(%s, %q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// TestRedactEvent: one event with a secret in every place the policy
// names; nothing of them is left, everything else is, and the original
// (whose maps the store may share) is untouched.
func TestRedactEvent(t *testing.T) {
	token := "eyJhbGciOiJIUzI1NiJ9.eyJ0YXNrIjoiMSJ9.c2lnbmF0dXJlLXNlY3JldA"
	r := NewRedactor(RedactionConfig{Secrets: []string{"context-secret-0123456789"}, Names: []string{"ssn"}})
	ev := Event{Kind: KindToolCall,
		Headers: map[string]string{"Authorization": "Bearer tok_live_0123456789", "X-Agentarea-Context": token,
			"X-Soat-Context-Ocatoken": "tok_live_0123456789", "Accept": "application/json"},
		SoatContext: map[string]string{"ocaToken": "tok_live_0123456789", "user": "tok_live_0123456789", "session_id": "sess_1"},
		Arguments: json.RawMessage(`{"file":"q3.xlsx","auth":{"password":"pw-arg-1"},"list":[{"api_key":"ak-arg-2"}],` +
			`"dsn":"mysql://u:pw-url-3@db/x","n":12,"jwt":42,"ssn":"123-45-6789","flag":{"token":true},"empty":{"secret":""}}`),
		Meta:              map[string]any{"agentarea/task_id": "t1", "nested": map[string]any{"client_secret": "cs-meta-4"}, "X-AgentArea-Context": token},
		Context:           &Context{Claims: map[string]any{"sub": "u1", "private_key": "pk-claim-5"}, Reason: "signed with context-secret-0123456789"},
		StructuredContent: json.RawMessage(`{"rows":[{"passphrase":"pp-sc-6","echo":"tok_live_0123456789"}]}`),
		TextPreview:       "the secret is context-secret-0123456789",
		Error:             `Post "http://user:pw-err-7@h/mcp?api_key=ak-err-8": refused`,
	}
	orig := ev.Headers["Authorization"]
	red := r.Event(ev)
	line, _ := json.Marshal(red)
	for _, secret := range []string{"tok_live_0123456789", "c2lnbmF0dXJlLXNlY3JldA", "pw-arg-1", "ak-arg-2", "pw-url-3", "cs-meta-4",
		"pk-claim-5", "pp-sc-6", "pw-err-7", "ak-err-8", "context-secret-0123456789", "123-45-6789", "42"} {
		if strings.Contains(string(line), secret) {
			t.Errorf("%q left in %s", secret, line)
		}
	}
	for _, kept := range []string{"q3.xlsx", `"n":12`, "sess_1", "application/json", "Bearer [redacted]", `"token":true`,
		`"secret":""`, "eyJ0YXNrIjoiMSJ9.[redacted]", `"agentarea/task_id":"t1"`, `"sub":"u1"`} {
		if !strings.Contains(string(line), kept) {
			t.Errorf("%q not kept in %s", kept, line)
		}
	}
	if ev.Headers["Authorization"] != orig || ev.Meta["nested"].(map[string]any)["client_secret"] != "cs-meta-4" || ev.Context.Claims["private_key"] != "pk-claim-5" {
		t.Error("the original event was modified")
	}
	// Remembered: a later event echoing the credential is redacted too.
	later := r.Event(Event{Kind: KindToolResult, TextPreview: "you sent tok_live_0123456789"})
	if strings.Contains(later.TextPreview, "tok_live") {
		t.Errorf("a later echo: %q", later.TextPreview)
	}
}

// TestRedactIsIdempotent: what was redacted passes unchanged (replay of a
// recording, an event redacted twice).
func TestRedactIsIdempotent(t *testing.T) {
	ev := Event{Kind: KindToolCall, Headers: map[string]string{"Authorization": "Bearer [redacted]", "X-Agentarea-Context": "a.b.[redacted]"},
		Arguments: json.RawMessage(`{"password":"[redacted]"}`), Error: "http://u:[redacted]@h/?token=[redacted]"}
	red := RedactEvent(ev)
	if string(red.Arguments) != string(ev.Arguments) || red.Error != ev.Error || red.Headers["Authorization"] != "Bearer [redacted]" ||
		red.Headers["X-Agentarea-Context"] != "a.b.[redacted]" {
		t.Errorf("changed: %+v", red)
	}
}

// TestRedactKeepsWhatItDoesNotChange: an event without secrets comes back
// with its own maps and bytes, not copies.
func TestRedactKeepsWhatItDoesNotChange(t *testing.T) {
	ev := Event{Kind: KindToolCall, Headers: map[string]string{"Accept": "x"}, Meta: map[string]any{"a": "b"},
		Arguments: json.RawMessage(`{"orderId": "A-17", "include": ["x"]}`)}
	red := RedactEvent(ev)
	if &red.Arguments[0] != &ev.Arguments[0] {
		t.Error("arguments copied")
	}
	red.Meta["a"] = "changed"
	if ev.Meta["a"] != "changed" {
		t.Error("meta copied")
	}
}

// TestRedactNotJSON: arguments that are not JSON are redacted as text.
func TestRedactNotJSON(t *testing.T) {
	red := RedactEvent(Event{Arguments: json.RawMessage(`{"dsn":"pg://u:secretpw@h/db"`)})
	if strings.Contains(string(red.Arguments), "secretpw") {
		t.Errorf("%s", red.Arguments)
	}
}
