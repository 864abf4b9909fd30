package model

import (
	"net/url"
	"strings"
)

// RedactURL is the URL as messages and recordings show it: its userinfo
// and credential query parameters redacted.
func RedactURL(u *url.URL) string { return redactURL(u.String(), defaultNames) }

// redactText replaces, in free text, every known secret, then what each
// of textRules finds.
func redactText(s string, known []string, names *nameMatcher) string {
	for _, v := range known {
		if len(s) >= len(v) && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	for _, r := range textRules {
		if strings.Contains(s, r.marker) {
			s = rewrite(s, r.find, names)
		}
	}
	return s
}

// textRules are the redactions of free text, each with the marker a text
// must hold for it to apply.
var textRules = []struct {
	marker string
	find   spanFinder
}{
	{"eyJ", jwtSignature},
	{"://", urlCredentials},
	{"=", assignedValue},
	{"--", flagValue},
	{": ", headerLine},
}

// spanFinder finds, from i on, the next span of s to look at: its bounds,
// what it becomes (the span itself when it stays) and where to look next;
// ok is false when there is none.
type spanFinder func(s string, i int, names *nameMatcher) (start, end int, with string, next int, ok bool)

// rewrite is s with the spans find finds replaced; nothing is built until
// one changes.
func rewrite(s string, find spanFinder, names *nameMatcher) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		start, end, with, next, ok := find(s, i, names)
		if !ok {
			break
		}
		if with != s[start:end] {
			b.WriteString(s[last:start])
			b.WriteString(with)
			last = end
		}
		i = max(next, i+1)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// jwtSignature is the signature of a compact JWS: three base64url
// segments, the first a JSON object ("eyJ").
func jwtSignature(s string, i int, _ *nameMatcher) (start, end int, with string, next int, ok bool) {
	k := strings.Index(s[i:], "eyJ")
	if k < 0 {
		return 0, 0, "", 0, false
	}
	at := i + k
	if at > 0 && base64URLByte(s[at-1]) {
		return at, at, "", at + 3, true
	}
	end1 := base64URLRun(s, at)
	if end1 >= len(s) || s[end1] != '.' {
		return at, at, "", end1, true
	}
	end2 := base64URLRun(s, end1+1)
	if end2 >= len(s) || s[end2] != '.' || end2 == end1+1 {
		return at, at, "", end2, true
	}
	end3 := base64URLRun(s, end2+1)
	if end3 == end2+1 {
		return at, at, "", end3, true
	}
	return end2 + 1, end3, Redacted, end3, true
}

func base64URLByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// base64URLRun is the end of the run of base64url bytes from i.
func base64URLRun(s string, i int) int {
	for i < len(s) && base64URLByte(s[i]) {
		i++
	}
	return i
}

// urlCredentials is a URL (a scheme, "://", and what follows up to a
// space, a quote or an angle bracket) as redactURL leaves it.
func urlCredentials(s string, i int, names *nameMatcher) (start, end int, with string, next int, ok bool) {
	k := strings.Index(s[i:], "://")
	if k < 0 {
		return 0, 0, "", 0, false
	}
	sep := i + k
	start = sep
	for start > 0 && schemeByte(s[start-1]) {
		start--
	}
	end = sep + 3
	for end < len(s) && !urlEnds(s[end]) {
		end++
	}
	if start == sep {
		return sep, sep, "", end, true
	}
	return start, end, redactURL(s[start:end], names), end, true
}

func schemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func urlEnds(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == 0x7f
}

// assignedValue is the value of a NAME=VALUE whose name is a credential's:
// a flag (--api-key=K), a setting (API_KEY=K, password=K in a log line), a
// query parameter outside a URL.
func assignedValue(s string, i int, names *nameMatcher) (start, end int, with string, next int, ok bool) {
	k := strings.IndexByte(s[i:], '=')
	if k < 0 {
		return 0, 0, "", 0, false
	}
	eq := i + k
	from := eq
	for from > 0 && nameByte(s[from-1]) {
		from--
	}
	end = eq + 1
	for end < len(s) && !valueEnds(s[end]) {
		end++
	}
	value := s[eq+1 : end]
	name := strings.TrimLeft(s[from:eq], "-")
	if name == "" || value == "" || value == Redacted || !names.isCredentialInText(name) {
		return eq, eq, "", end, true
	}
	return eq + 1, end, Redacted, end, true
}

// flagValue is the word after a flag named like a credential, as a
// command line in a message writes it (--token K).
func flagValue(s string, i int, names *nameMatcher) (start, end int, with string, next int, ok bool) {
	k := strings.Index(s[i:], "--")
	if k < 0 {
		return 0, 0, "", 0, false
	}
	at := i + k
	nameEnd := at + 2
	for nameEnd < len(s) && nameByte(s[nameEnd]) {
		nameEnd++
	}
	if at > 0 && s[at-1] != ' ' || nameEnd == at+2 || nameEnd >= len(s) || s[nameEnd] != ' ' {
		return at, at, "", nameEnd, true
	}
	start = nameEnd + 1
	end = start
	for end < len(s) && s[end] > ' ' {
		end++
	}
	value := s[start:end]
	if value == "" || value[0] == '-' || value == Redacted || !names.isCredentialInText(s[at+2:nameEnd]) {
		return at, at, "", nameEnd, true
	}
	return start, end, Redacted, end, true
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func valueEnds(c byte) bool {
	return c <= ' ' || strings.IndexByte("&;,\"'()[]{}<>`", c) >= 0 || c == 0x7f
}

// headerLine is a line that reads as a credential header ("Authorization:
// Bearer tok", "token: abc", as a server echoing its request writes it)
// with its value redacted.
func headerLine(s string, i int, names *nameMatcher) (start, end int, with string, next int, ok bool) {
	end = strings.IndexByte(s[i:], '\n')
	if end < 0 {
		end = len(s)
	} else {
		end += i
	}
	return i, end, redactHeaderLine(s[i:end], names), end + 1, true
}

func redactHeaderLine(line string, names *nameMatcher) string {
	trimmed := strings.TrimLeft(line, " \t")
	name, rest, found := strings.Cut(trimmed, ": ") // "Name: value" as headers are written; "task:call" is no header
	if !found || name == "" {
		return line
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return line
		}
	}
	value := strings.TrimSpace(rest)
	if value == "" || !names.isCredentialInText(name) {
		return line
	}
	red := credentialValue(value)
	if red == value {
		return line
	}
	return line[:len(line)-len(trimmed)] + name + ": " + red
}

// redactURL is one URL (scheme://...) with its userinfo ("user:[redacted]@",
// or "[redacted]@" when it is a bare token) and the values of credential
// parameters in its query and fragment redacted. The rest is kept as
// written.
func redactURL(u string, names *nameMatcher) string {
	sep := strings.Index(u, "://")
	if sep < 0 {
		return u
	}
	rest := u[sep+3:]
	authEnd := strings.IndexAny(rest, "/?#")
	if authEnd < 0 {
		authEnd = len(rest)
	}
	var b strings.Builder
	b.WriteString(u[:sep+3])
	authority := rest[:authEnd]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user := authority[:at]
		if colon := strings.IndexByte(user, ':'); colon >= 0 {
			b.WriteString(user[:colon+1] + Redacted)
		} else {
			b.WriteString(Redacted)
		}
		b.WriteString(authority[at:])
	} else {
		b.WriteString(authority)
	}
	rest = rest[authEnd:]
	path, query := rest, ""
	if q := strings.IndexAny(rest, "?#"); q >= 0 {
		path, query = rest[:q], rest[q:]
	}
	b.WriteString(path)
	// The query and the fragment (OAuth's #access_token=...) alike.
	for query != "" {
		b.WriteByte(query[0]) // the separator: ?, #, & or ;
		query = query[1:]
		end := strings.IndexAny(query, "&;#")
		if end < 0 {
			end = len(query)
		}
		b.WriteString(redactParam(query[:end], names))
		query = query[end:]
	}
	out := b.String()
	if out == u {
		return u
	}
	return out
}

// redactParam is one name=value of a query with a credential's value
// redacted.
func redactParam(p string, names *nameMatcher) string {
	name, value, ok := strings.Cut(p, "=")
	if !ok || value == "" || value == Redacted {
		return p
	}
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	if !names.isCredential(name) {
		return p
	}
	return p[:len(p)-len(value)] + Redacted
}
