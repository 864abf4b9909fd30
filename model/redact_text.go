package model

import (
	"net/url"
	"strings"
)

// RedactURL is the URL as messages and recordings show it: its userinfo
// and credential query parameters redacted.
func RedactURL(u *url.URL) string { return redactURL(u.String(), defaultNames) }

// redactText replaces, in free text, every known secret, every JWT's
// signature and every URL's credentials.
func redactText(s string, known []string, names *nameMatcher) string {
	for _, v := range known {
		if len(s) >= len(v) && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	if strings.Contains(s, "eyJ") {
		s = redactJWTs(s)
	}
	if strings.Contains(s, "://") {
		s = redactURLs(s, names)
	}
	if strings.IndexByte(s, '=') >= 0 {
		s = redactAssignments(s, names)
	}
	if strings.Contains(s, "--") {
		s = redactFlagValues(s, names)
	}
	if strings.IndexByte(s, ':') >= 0 {
		s = redactHeaderLines(s, names)
	}
	return s
}

// redactAssignments redacts the value of every NAME=VALUE whose name is a
// credential's: a flag (--api-key=K), a setting (API_KEY=K, password=K in
// a log line), a query parameter outside a URL.
func redactAssignments(s string, names *nameMatcher) string {
	var b strings.Builder
	last := 0
	for i := strings.IndexByte(s, '='); i >= 0 && i < len(s); {
		start := i
		for start > 0 && nameByte(s[start-1]) {
			start--
		}
		end := i + 1
		for end < len(s) && !valueEnds(s[end]) {
			end++
		}
		name := strings.TrimLeft(s[start:i], "-")
		if value := s[i+1 : end]; name != "" && value != "" && value != Redacted && names.isCredentialInText(name) {
			b.WriteString(s[last : i+1])
			b.WriteString(Redacted)
			last = end
		}
		next := strings.IndexByte(s[end:], '=')
		if next < 0 {
			break
		}
		i = end + next
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactFlagValues redacts the word after a flag named like a credential,
// as a command line in a message writes it (--token K).
func redactFlagValues(s string, names *nameMatcher) string {
	var b strings.Builder
	last := 0
	for i := strings.Index(s, "--"); i >= 0; {
		nameEnd := i + 2
		for nameEnd < len(s) && nameByte(s[nameEnd]) {
			nameEnd++
		}
		if (i == 0 || s[i-1] == ' ') && nameEnd < len(s) && s[nameEnd] == ' ' && nameEnd > i+2 {
			start := nameEnd + 1
			end := start
			for end < len(s) && s[end] > ' ' {
				end++
			}
			if value := s[start:end]; value != "" && value[0] != '-' && value != Redacted && names.isCredentialInText(s[i+2:nameEnd]) {
				b.WriteString(s[last:start])
				b.WriteString(Redacted)
				last = end
			}
		}
		next := strings.Index(s[nameEnd:], "--")
		if next < 0 {
			break
		}
		i = nameEnd + next
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func valueEnds(c byte) bool {
	return c <= ' ' || strings.IndexByte(`&;,"'()[]{}<>`+"`", c) >= 0 || c == 0x7f
}

// redactHeaderLines redacts the value of every line that reads as a
// credential header ("Authorization: Bearer tok", "token: abc"), as a
// server echoing its request writes it.
func redactHeaderLines(s string, names *nameMatcher) string {
	var b strings.Builder
	last := 0 // s[:last] is in b once a line changed
	for at := 0; at < len(s); {
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		if line := s[at:end]; strings.IndexByte(line, ':') >= 0 {
			if red := redactHeaderLine(line, names); red != line {
				b.WriteString(s[last:at])
				b.WriteString(red)
				last = end
			}
		}
		at = end + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func redactHeaderLine(line string, names *nameMatcher) string {
	trimmed := strings.TrimLeft(line, " \t")
	colon := strings.IndexByte(trimmed, ':')
	if colon <= 0 {
		return line
	}
	name := trimmed[:colon]
	if !strings.HasPrefix(trimmed[colon+1:], " ") { // "Name: value" as headers are written; "task:call" is no header
		return line
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return line
		}
	}
	value := strings.TrimSpace(trimmed[colon+1:])
	if value == "" || !names.isCredentialInText(name) {
		return line
	}
	red := credentialValue(value)
	if red == value {
		return line
	}
	return line[:len(line)-len(trimmed)] + name + ": " + red
}

// redactJWTs replaces the signature of every compact JWS in s: three
// base64url segments, the first a JSON object ("eyJ").
func redactJWTs(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], "eyJ")
		if k < 0 {
			break
		}
		start := i + k
		if start > 0 && base64URLByte(s[start-1]) {
			i = start + 3
			continue
		}
		end1 := base64URLRun(s, start)
		if end1 >= len(s) || s[end1] != '.' {
			i = end1
			continue
		}
		end2 := base64URLRun(s, end1+1)
		if end2 >= len(s) || s[end2] != '.' || end2 == end1+1 {
			i = end2
			continue
		}
		end3 := base64URLRun(s, end2+1)
		if end3 > end2+1 {
			b.WriteString(s[last : end2+1])
			b.WriteString(Redacted)
			last = end3
		}
		i = end3
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
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

// redactURLs applies redactURL to every URL in s (a scheme, "://", and
// what follows up to a space, a quote or an angle bracket).
func redactURLs(s string, names *nameMatcher) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			break
		}
		sep := i + k
		start := sep
		for start > 0 && schemeByte(s[start-1]) {
			start--
		}
		end := sep + 3
		for end < len(s) && !urlEnds(s[end]) {
			end++
		}
		if start < sep {
			if red := redactURL(s[start:end], names); red != s[start:end] {
				b.WriteString(s[last:start])
				b.WriteString(red)
				last = end
			}
		}
		i = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func schemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func urlEnds(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == 0x7f
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
