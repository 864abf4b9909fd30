package model

import (
	"bytes"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// namePattern is one entry of the list of credential names.
type namePattern struct {
	word string // lower case letters and digits only
	// whole: the name is a credential only when it is this word and
	// nothing else ("key", never "idempotency_key").
	whole bool
}

// CredentialNames is the one list of names that hold a credential, for
// header names, URL query parameters, command-line flags and the keys of
// arguments, structured content, _meta and SOAT context alike. A name
// matches when one of its words (split at -, _, ., spaces and camelCase),
// or two or three of them written together ("api_key", "privateKey"), is
// the pattern or ends with it ("oauth", "X-Csrftoken"); a whole pattern
// matches only the whole name. --redact and --credential-header add words.
var CredentialNames = []namePattern{
	{word: "auth"}, {word: "authorization"}, {word: "bearer"},
	{word: "token"}, {word: "jwt"},
	{word: "secret"}, {word: "secrets"}, {word: "clientsecret"},
	{word: "password"}, {word: "passwd"}, {word: "passphrase"}, {word: "pwd"},
	{word: "credential"}, {word: "credentials"},
	{word: "apikey"}, {word: "accesskey"}, {word: "privatekey"},
	{word: "cookie"}, {word: "signature"},
	{word: "key", whole: true}, {word: "pass", whole: true}, {word: "sig", whole: true},
}

// notCredentialNames read like credentials but are not: MCP's progress
// token and OAuth's token type are ids and kinds, shown for debugging.
var notCredentialNames = map[string]bool{"progresstoken": true, "tokentype": true}

// nameMatcher says which names are credentials: CredentialNames and this
// run's own words. Its verdicts are cached: the same few header names and
// keys come with every call.
type nameMatcher struct {
	extra []namePattern
	mu    sync.Mutex                      // held by who adds a verdict
	cache atomic.Pointer[map[string]bool] // read without a lock, replaced whole
}

// maxCachedNames bounds the verdicts kept (names come from the wire), and
// so the copies made to add one.
const maxCachedNames = 1024

// defaultNames judges names for a Redactor made without extra words.
var defaultNames = &nameMatcher{}

func newNameMatcher(extra []string) *nameMatcher {
	m := &nameMatcher{}
	for _, w := range extra {
		if n := normalizedName(w); n != "" {
			m.extra = append(m.extra, namePattern{word: n})
		}
	}
	return m
}

// isCredential says whether a value under this name is a credential.
func (m *nameMatcher) isCredential(name string) bool {
	if c := m.cache.Load(); c != nil {
		if v, ok := (*c)[name]; ok {
			return v
		}
	}
	v := m.judge(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.cache.Load()
	if old == nil || len(*old) < maxCachedNames {
		next := make(map[string]bool, maxCachedNames/8)
		if old != nil {
			next = maps.Clone(*old)
		}
		next[strings.Clone(name)] = v
		m.cache.Store(&next)
	}
	return v
}

// isCredentialInText is isCredential for a name found in free text (NAME=
// in a log line, "Name:" starting a line): such names are many and rarely
// repeat, so they are judged without being cached.
func (m *nameMatcher) isCredentialInText(name string) bool { return m.judge(name) }

func (m *nameMatcher) judge(name string) bool {
	if len(m.extra) == 0 && !mayNameCredential(name) {
		return false // most names, told apart without splitting them into words
	}
	if name == "" || notCredentialNames[normalizedName(name)] {
		return false
	}
	// Words split at separators only ("X-ToKen" is X, token: header names
	// are case-blind), then also at camelCase ("ocaToken" is oca, token).
	segments := nameWords(name, false)
	if m.matchesList(segments) {
		return true
	}
	whole := strings.Join(segments, "")
	for _, p := range m.patterns() {
		if p.whole && p.word == whole {
			return true
		}
	}
	return m.matchesList(nameWords(name, true))
}

func (m *nameMatcher) patterns() []namePattern {
	if len(m.extra) == 0 {
		return CredentialNames
	}
	return append(append([]namePattern(nil), CredentialNames...), m.extra...)
}

// matchesList says whether one word, or two or three words written
// together, is a (non-whole) pattern or ends with one.
func (m *nameMatcher) matchesList(words []string) bool {
	pats := m.patterns()
	for i := range words {
		run := ""
		for j := i; j < len(words) && j < i+3; j++ {
			run += words[j]
			for _, p := range pats {
				if !p.whole && strings.HasSuffix(run, p.word) {
					return true
				}
			}
		}
	}
	return false
}

// mayNameCredential is false for a name that holds none of the fragments
// every credential name holds (credentialFragments), read without
// splitting it into words.
func mayNameCredential(name string) bool {
	var buf [64]byte
	if len(name) > len(buf) {
		return true
	}
	lower := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf {
			return true // a letter that may lower to an ASCII one (the Kelvin sign)
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	for _, f := range credentialFragments {
		if bytes.Contains(lower, f) {
			return true
		}
	}
	return false
}

// nameWords splits a name into lower-case words of letters and digits:
// at every other character, and with camel also where a lower-case letter
// or a digit meets an upper-case one ("apiKey", "XMLToken") and where
// letters meet digits.
func nameWords(name string, camel bool) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	var prev rune
	for i, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			prev = 0
			continue
		}
		if camel && prev != 0 {
			next, _ := utf8.DecodeRuneInString(name[i+utf8.RuneLen(r):])
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && unicode.IsLower(next):
				flush()
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush()
			}
		}
		cur.WriteRune(unicode.ToLower(r))
		prev = r
	}
	flush()
	return words
}

// normalizedName is a name's letters and digits, lower case: how --redact
// words and the exceptions are compared.
func normalizedName(name string) string {
	return strings.Join(nameWords(name, false), "")
}
