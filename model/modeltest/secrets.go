package modeltest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"toolscope/model"
)

// SecretTable is the one table of secrets toolscope's outputs are checked
// against (issue 24: one redaction policy, applied to every output). Each
// secret is planted where a source carries it: a bearer token and an API
// key in headers, the context token's signature, a URL's password, a
// token in a query, command-line secrets, credential keys at any depth of
// arguments, _meta, claims and structured content, a SOAT context key
// that echoes the bearer token, and the context secret.
//
// To check an output (a new exporter, a server, a file format):
//
//	tb := modeltest.Secrets()
//	hub := output.NewHub(model.NewStore(model.Options{}), yourOutput)
//	hub.Redactor = model.NewRedactor(tb.Redaction()) // as cli makes it
//	for _, e := range tb.Events() {
//		hub.Emit(e)
//	}
//	hub.Close() // or whatever makes your output write
//	tb.Check(t, "your output", whatItWrote)
//
// Check fails for every secret found in full; decode what is encoded
// first (base64, protobuf strings are plain bytes). A source that runs a
// command records Argv; a client that sends requests uses the values of
// the table's fields.
type SecretTable struct {
	Bearer        string // Authorization: Bearer <Bearer>, echoed in X-Soat-Context-ocaToken
	APIKey        string // X-Api-Key
	Token         string // the X-AgentArea-Context token; its signature is TokenSignature
	URLPassword   string // postgresql://dbuser:<URLPassword>@db.internal:5432/ledger
	QueryToken    string // https://files.example/q3.csv?token=<QueryToken>
	QueryKey      string // http://user:<URLPassword>@host/mcp?api_key=<QueryKey>
	ContextSecret string // TOOLSCOPE_CONTEXT_SECRET: told to the redactor, echoed by a server
	// Argv is a server's command line carrying a URL password and flag
	// values (--api-key=K and --token K).
	Argv []string

	secrets []PlantedSecret
}

// PlantedSecret is one secret of the table: what it is, and its value.
type PlantedSecret struct{ What, Value string }

// TokenSignature is the signature of the table's token.
const TokenSignature = "SIGsecretSIGNATUREnotShown0123456789abcdef"

// Secrets is the table.
func Secrets() *SecretTable {
	tb := &SecretTable{
		Bearer: "tok_live_BEARERsecret_4f1c9a", APIKey: "ak_HEADERsecret_7d2e11",
		Token:       "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0YXNrX2lkIjoidGFzay1zZWNyZXRzIiwidG9vbCI6ImV4cG9ydF9sZWRnZXIifQ." + TokenSignature,
		URLPassword: "PWurlSECRET_9a3b77", QueryToken: "QTquerySECRET_5c8d33", QueryKey: "QKquerySECRET_2e4f55",
		ContextSecret: "ctxSECRET-0123456789-abcdefghijklmnop",
	}
	tb.Argv = []string{"ledger-server", "postgresql://dbuser:" + tb.URLPassword + "@db.internal:5432/ledger",
		"--api-key=ARGVkeySECRET_1b2c", "--token", "ARGVtokenSECRET_3d4e", "--port", "8080"}
	tb.secrets = []PlantedSecret{
		{"bearer token (Authorization, echoed in SOAT context)", tb.Bearer},
		{"API key header", tb.APIKey},
		{"context token signature", TokenSignature},
		{"URL password", tb.URLPassword},
		{"query token", tb.QueryToken},
		{"query api_key", tb.QueryKey},
		{"context secret", tb.ContextSecret},
		{"argv --api-key=", "ARGVkeySECRET_1b2c"},
		{"argv --token", "ARGVtokenSECRET_3d4e"},
		{"argument key at depth (password)", "ARGpassSECRET_6f7a"},
		{"argument key in a list (client_secret)", "ARGclientSECRET_8b9c"},
		{"_meta key (private_key)", "METAprivSECRET_0d1e"},
		{"claim (passphrase)", "CLAIMphraseSECRET_2f3a"},
		{"structured content key (pwd)", "SCpwdSECRET_4b5c"},
		{"feed event data (api_key)", "DATAkeySECRET_6d7e"},
		{"a client's input response key (api_key)", "INPUTkeySECRET_8f9a"},
		{"an elicitation URL's query (token)", "ELICITurlSECRET_1c2d"},
	}
	return tb
}

// All are the secrets, each with what it is.
func (tb *SecretTable) All() []PlantedSecret { return tb.secrets }

// Redaction is what the redactor is told of the run, as cli tells it.
func (tb *SecretTable) Redaction() model.RedactionConfig {
	return model.RedactionConfig{Secrets: []string{tb.ContextSecret}}
}

// Visible are words every output that shows the call must still show: the
// tool, and the mark of what was hidden.
var Visible = []string{"export_ledger", model.Redacted}

// Events are what the sources emit, unredacted: a stdio tap's start, a
// tap's tool.call with its headers, context and SOAT bag, a progress, a
// warning naming a URL, the result (echoing the token and the context
// secret) and a feed's passed-through event.
func (tb *SecretTable) Events() []model.Event {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	call := func(kind model.Kind, ms int) model.Event {
		return model.Event{Time: at.Add(time.Duration(ms) * time.Millisecond), Source: model.SourceTap, SourceName: "tap:ledger",
			Kind: kind, TaskID: "task-secrets", ToolCallID: "call_secret", Tool: "export_ledger", Exchange: "1", RequestID: "1",
			IdempotencyKey: "task-secrets:call_secret"}
	}
	start := model.Event{Time: at, Source: model.SourceTap, SourceName: "tap:ledger", Kind: model.KindSourceStatus,
		State: model.StateConnected, Detail: "running " + strings.Join(tb.Argv, " ") + " (pid 42) on stdio"}
	c := call(model.KindToolCall, 1)
	c.Headers = map[string]string{"Authorization": "Bearer " + tb.Bearer, "X-Api-Key": tb.APIKey,
		"X-Agentarea-Context": tb.Token, "X-Soat-Context-Ocatoken": tb.Bearer, "Content-Type": "application/json"}
	c.SoatContext = map[string]string{"ocaToken": tb.Bearer, "userRef": tb.Bearer, "tenantId": "acme"}
	c.Arguments = MustJSON(map[string]any{"ledger": "q3",
		"target":  "postgresql://dbuser:" + tb.URLPassword + "@db.internal:5432/ledger",
		"source":  "https://files.example/q3.csv?token=" + tb.QueryToken,
		"auth":    map[string]any{"profile": map[string]any{"password": "ARGpassSECRET_6f7a"}},
		"batches": []any{map[string]any{"client_secret": "ARGclientSECRET_8b9c", "rows": 10}}})
	c.Meta = map[string]any{"agentarea/task_id": "task-secrets", "agentarea/metadata": map[string]any{"private_key": "METAprivSECRET_0d1e"}}
	c.Context = &model.Context{Present: true, Verdict: model.VerdictValid, CredentialPresent: true,
		Header: map[string]any{"alg": "HS256", "typ": "JWT"},
		Claims: map[string]any{"task_id": "task-secrets", "tool": "export_ledger", "metadata": map[string]any{"passphrase": "CLAIMphraseSECRET_2f3a"}},
		Steps:  []model.Step{{Name: "signature", Passed: true, Detail: "HS256"}}}
	p := call(model.KindToolProgress, 2)
	total := 2.0
	p.Progress, p.Total, p.Message = 1, &total, "uploading to https://uploader:"+tb.URLPassword+"@s3.example/q3"
	w := call(model.KindWarning, 3)
	w.Code, w.Message = string(model.WarnMalformedResponse),
		`Post "http://user:`+tb.URLPassword+`@127.0.0.1:1/mcp?api_key=`+tb.QueryKey+`": dial tcp: connection refused`
	// A second round: the server asks the client to sign in by a URL, and
	// the client's answer carries a credential.
	asked := call(model.KindToolResult, 3)
	asked.Round, asked.ResultType, asked.HTTPStatus = 1, "input_required", 200
	asked.InputRequests = []model.InputRequest{{ID: "login", Method: model.InputElicit, Message: "Sign in to the ledger",
		URL: "https://auth.example/connect?token=ELICITurlSECRET_1c2d"}}
	again := call(model.KindToolCall, 3)
	again.Round, again.RequestID = 2, "2"
	again.InputResponses = MustJSON(map[string]any{"login": map[string]any{"action": "accept",
		"content": map[string]any{"api_key": "INPUTkeySECRET_8f9a"}}})
	r := call(model.KindToolResult, 4)
	r.Round = 2
	r.DurationMS, r.HTTPStatus, r.TextChars = 4, 200, 120
	r.TextPreview = "exported with " + tb.Token + " after checking " + tb.ContextSecret
	r.StructuredContent = MustJSON(map[string]any{"rows": []any{map[string]any{"pwd": "SCpwdSECRET_4b5c", "note": "auth was Bearer " + tb.Bearer}}})
	feed := model.Event{Time: at.Add(5 * time.Millisecond), Source: model.SourceFeed, SourceName: "feed:task-secrets",
		Kind: model.KindEvent, TaskID: "task-secrets", EventType: "llm.call.started",
		Data: MustJSON(map[string]any{"provider": map[string]any{"api_key": "DATAkeySECRET_6d7e"}})}
	return []model.Event{start, c, p, w, asked, again, r, feed}
}

// Check fails t for every secret of the table that text holds in full.
func (tb *SecretTable) Check(t testing.TB, output, text string) {
	t.Helper()
	if text == "" {
		t.Errorf("%s: wrote nothing to check", output)
		return
	}
	for _, s := range tb.secrets {
		if strings.Contains(text, s.Value) {
			t.Errorf("%s shows the %s (%s)", output, s.What, s.Value)
		}
	}
}

// MustJSON is v marshalled; it panics on what does not marshal (a test
// fixture bug).
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
