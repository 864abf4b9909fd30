package model

import (
	"bytes"
	"net/textproto"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Redacted replaces a secret's value wherever one would be written.
const Redacted = "[redacted]"

// secretHeaders are header names whose values are credentials. It is never
// modified: a configured credential header goes into a Redactor instead.
var secretHeaders = map[string]bool{
	"Authorization":       true,
	"Proxy-Authorization": true,
	"X-Api-Key":           true,
	"Cookie":              true,
	"Set-Cookie":          true,
}

// ContextHeader carries the AgentArea context token, spelled as the
// contract spells it (HTTP compares names case-insensitively).
const ContextHeader = "X-AgentArea-Context"

var canonicalContextHeader = textproto.CanonicalMIMEHeaderKey(ContextHeader)

// Redactor says which header values are credentials and replaces them: the
// common ones, any name that reads like one, and the ones this run was told
// of (--credential-header). The zero Redactor knows the first two. It is a
// value built at start-up and handed to what writes events, never a global.
type Redactor struct {
	extra map[string]bool // canonical names
}

// NewRedactor also treats these headers as credentials.
func NewRedactor(credentialHeaders ...string) Redactor {
	r := Redactor{extra: map[string]bool{}}
	for _, h := range credentialHeaders {
		if h != "" {
			r.extra[textproto.CanonicalMIMEHeaderKey(h)] = true
		}
	}
	return r
}

// IsSecretHeader says whether a header's value must never be shown.
func (r Redactor) IsSecretHeader(name string) bool {
	return r.isSecretCanonical(textproto.CanonicalMIMEHeaderKey(name))
}

func (r Redactor) isSecretCanonical(canon string) bool {
	return secretHeaders[canon] || r.extra[canon] || credentialLike(canon)
}

// credentialWords in a header name mark it as holding a credential
// (Api-Key, X-Auth-Token, X-Access-Token, Private-Token...), so a credential
// header nobody named with --credential-header is still never recorded.
var credentialWords = []string{"auth", "token", "secret", "password", "passwd", "credential", "api-key", "apikey", "api_key", "access-key", "private-key", "cookie", "signature"}

// credentialWordsByFirst indexes credentialWords by their first byte:
// every header of every call passes here, and one pass over the name is
// cheaper than a search for each word.
var credentialWordsByFirst = func() (index [256][]string) {
	for _, w := range credentialWords {
		index[w[0]] = append(index[w[0]], w)
	}
	return index
}()

func credentialLike(canon string) bool {
	// An ASCII name (all of them in practice) is lowered into a stack
	// buffer, not a new string.
	var buf [64]byte
	lower, ok := asciiLower(buf[:0], canon)
	if !ok {
		lower = []byte(strings.ToLower(canon)) // Unicode case rules (the Kelvin sign is a k)
	}
	for i, c := range lower {
		for _, w := range credentialWordsByFirst[c] {
			if bytes.HasPrefix(lower[i:], []byte(w)) {
				return true
			}
		}
	}
	return false
}

// asciiLower appends s lowered to dst; ok is false when s is not ASCII.
func asciiLower(dst []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return nil, false
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst, true
}

// RedactHeader is Redactor{}.Header: the redaction every writer applies
// whatever it was configured with.
func RedactHeader(name, value string) string { return Redactor{}.Header(name, value) }

// Header returns a header value safe to record: credentials become
// "Bearer [redacted]" (the scheme is kept, it helps debugging), a context
// token keeps its header and claims but loses its signature.
func (r Redactor) Header(name, value string) string {
	if keep, redacted := r.headerRedaction(name, value); redacted {
		return value[:keep] + Redacted
	}
	return value
}

// headerRedaction says how a header value is recorded: unchanged, or (redacted)
// its first keep bytes followed by Redacted. The kept prefix ends in an ASCII
// byte, so the JSON encoder can write it and Redacted without building the
// string.
func (r Redactor) headerRedaction(name, value string) (keep int, redacted bool) {
	switch knownHeaders[name] { // the common names, judged once (encode_headers.go)
	case headerContext:
		return tokenRedaction(value)
	case headerPlain:
		if !r.extra[name] {
			return 0, false
		}
		return credentialRedaction(value)
	case headerSecret:
		return credentialRedaction(value)
	}
	return r.anyHeaderRedaction(name, value)
}

// anyHeaderRedaction is headerRedaction for any name, judged from its
// canonical form on each call.
func (r Redactor) anyHeaderRedaction(name, value string) (keep int, redacted bool) {
	canon := textproto.CanonicalMIMEHeaderKey(name)
	if canon == canonicalContextHeader {
		return tokenRedaction(value)
	}
	if !r.isSecretCanonical(canon) {
		return 0, false
	}
	return credentialRedaction(value)
}

// credentialRedaction keeps a credential's scheme ("Bearer ") when it has a
// short one, and nothing else of it.
func credentialRedaction(value string) (keep int, redacted bool) {
	if scheme, _, ok := strings.Cut(value, " "); ok && len(scheme) < 16 && value != "" {
		return len(scheme) + 1, true
	}
	return 0, true
}

// RedactToken drops the signature of a compact JWS, keeping what anyone
// holding the token could read anyway (header and claims).
func RedactToken(token string) string {
	if keep, redacted := tokenRedaction(token); redacted {
		return token[:keep] + Redacted
	}
	return token
}

// tokenRedaction is RedactToken as headerRedaction's prefix length.
func tokenRedaction(token string) (keep int, redacted bool) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 || strings.Count(token, ".") != 2 {
		return 0, token != ""
	}
	return i + 1, true
}

// Redact is Redactor{}.Event.
func Redact(e Event) Event { return Redactor{}.Event(e) }

// Event returns the event with every secret it may hold replaced. The
// original is not modified (its maps may be shared with the store).
func (r Redactor) Event(e Event) Event {
	if len(e.Headers) > 0 {
		var out map[string]string
		for k, v := range e.Headers {
			if red := r.Header(k, v); red != v {
				if out == nil {
					out = make(map[string]string, len(e.Headers))
					for k2, v2 := range e.Headers {
						out[k2] = v2
					}
				}
				out[k] = red
			}
		}
		if out != nil {
			e.Headers = out
		}
	}
	e.Wire = r.Wire(e.Wire)
	return e
}

// SecretQueryKeys are query parameters whose values are credentials
// (compared case-insensitively).
var SecretQueryKeys = []string{"token", "access_token", "api_key", "apikey", "key", "auth", "jwt"}

// RedactURL is the URL as messages and recordings show it: a password, or
// a credential in the query, is redacted.
func RedactURL(u *url.URL) string {
	c := *u
	if c.RawQuery != "" {
		q := c.Query()
		changed := false
		for k := range q {
			for _, s := range SecretQueryKeys {
				if strings.EqualFold(k, s) {
					q.Set(k, Redacted)
					changed = true
				}
			}
		}
		if changed {
			c.RawQuery = q.Encode()
		}
	}
	return c.Redacted()
}
