package model

import (
	"strings"
)

// Redacted replaces a secret's value wherever one would be written.
const Redacted = "[redacted]"

// ContextHeader carries the AgentArea context token, spelled as the
// contract spells it (HTTP compares names case-insensitively).
const ContextHeader = "X-AgentArea-Context"

// Redactor is toolscope's one redaction policy. Every event passes it once,
// in the hub, before the store, the screen, the lines, the recording or an
// exporter sees it; probe passes what it writes through it too. It
// replaces:
//   - the values of headers, query parameters, command-line flags and keys
//     (at any depth of arguments, structured content, _meta, claims and the
//     SOAT context) whose names are credentials (CredentialNames, plus this
//     run's --redact and --credential-header words); a header keeps its
//     scheme ("Bearer [redacted]");
//   - the context token's signature (the header and claims stay: whoever
//     holds the token can read them), and that of any JWT in any text;
//   - in any text: a URL's userinfo and credential query parameters, the
//     value of NAME=VALUE, --flag VALUE and "Name: value" lines of credential
//     names, and a JSON document written as text as JSON is;
//   - any value it was told is secret (context secrets, the feed's API key)
//     and any credential it saw in a redacted header, wherever it appears
//     again (X-Soat-Context-ocaToken beside Authorization: Bearer tok_...).
//
// A nil *Redactor is the policy without this run's words or memory.
type Redactor struct {
	names   *nameMatcher
	secrets *secretMemory
}

// RedactionConfig is what a run adds to the policy.
type RedactionConfig struct {
	// Names are more credential names (--redact, --credential-header).
	Names []string
	// Secrets are values never shown anywhere (context secrets, the
	// feed's API key).
	Secrets []string
}

// NewRedactor is the policy with this run's names and secrets. It
// remembers the credentials it redacts in headers (a bounded number).
func NewRedactor(cfg RedactionConfig) *Redactor {
	r := &Redactor{names: newNameMatcher(cfg.Names), secrets: &secretMemory{}}
	r.secrets.fix(cfg.Secrets)
	return r
}

// AddSecrets adds values never to be shown (secrets loaded after the
// redactor was made). Call before the sources start.
func (r *Redactor) AddSecrets(values ...string) { r.secrets.fix(values) }

func (r *Redactor) matcher() *nameMatcher {
	if r == nil || r.names == nil {
		return defaultNames
	}
	return r.names
}

// IsCredentialName says whether a value under this name (a header, a
// key, a flag, a query parameter) is a credential.
func (r *Redactor) IsCredentialName(name string) bool { return r.matcher().isCredential(name) }

// Header is a header's value as it may be shown: a credential's value
// redacted (its scheme kept), the context token without its signature,
// any other value as Text leaves it.
func (r *Redactor) Header(name, value string) string {
	return r.pass(nil).header(name, value)
}

// Text is free text (an error, a message, a preview) with known secrets,
// JWT signatures and URL credentials redacted.
func (r *Redactor) Text(s string) string { return r.pass(nil).text(s) }

// JSON is a JSON document with the values of credential keys, and
// whatever Text redacts in its strings, redacted. What is not JSON is
// treated as Text.
func (r *Redactor) JSON(raw []byte) []byte {
	red, _ := r.pass(nil).json(raw)
	return red
}

// RedactHeader is the policy's Header without this run's words.
func RedactHeader(name, value string) string { return (*Redactor)(nil).Header(name, value) }

// RedactText is the policy's Text without this run's words.
func RedactText(s string) string { return (*Redactor)(nil).Text(s) }

// RedactToken drops the signature of a compact JWS, keeping what anyone
// holding the token could read anyway (header and claims); a value that
// is no JWS is redacted whole.
func RedactToken(token string) string {
	i := strings.LastIndexByte(token, '.')
	switch {
	case token == "" || strings.HasSuffix(token, "."+Redacted) || token == Redacted:
		return token
	case i < 0 || strings.Count(token, ".") != 2:
		return Redacted
	}
	return token[:i+1] + Redacted
}

// authSchemes are the Authorization schemes kept before a redacted
// credential: the scheme helps debugging and is no secret.
var authSchemes = []string{"Basic", "Bearer", "Digest", "Negotiate", "NTLM", "Token", "Bot", "DPoP", "ApiKey",
	"AWS4-HMAC-SHA256", "HOBA", "Mutual", "OAuth", "SCRAM-SHA-1", "SCRAM-SHA-256", "vapid"}

func isAuthScheme(s string) bool {
	for _, a := range authSchemes {
		if strings.EqualFold(s, a) {
			return true
		}
	}
	return false
}

// credentialValue is a credential as shown: "Bearer [redacted]", or
// [redacted] whole. An empty value stays empty (nothing is hidden).
func credentialValue(v string) string {
	if v == "" {
		return ""
	}
	if scheme, _, ok := strings.Cut(v, " "); ok && isAuthScheme(scheme) {
		if scheme == "Bearer" {
			return "Bearer " + Redacted // the common one, not built each time
		}
		return scheme + " " + Redacted
	}
	return Redacted
}

// credentialParts are what of a credential header's value is remembered:
// the value, and the credential after its scheme ("" when it has none).
func credentialParts(v string) (whole, credential string) {
	if scheme, rest, ok := strings.Cut(v, " "); ok && isAuthScheme(scheme) {
		return v, strings.TrimSpace(rest)
	}
	return v, ""
}

// RedactEvent is the policy's Event without this run's words or memory.
func RedactEvent(e Event) Event { return (*Redactor)(nil).Event(e) }
