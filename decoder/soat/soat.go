package soat

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"toolscope/model"
)

// DefaultPrefix is SOAT's context header prefix when
// TOOL_CONTEXT_HEADER_PREFIX is unset or empty.
const DefaultPrefix = "X-Soat-Context-"

// PrefixEnv names the variable that replaces the prefix.
const PrefixEnv = "TOOL_CONTEXT_HEADER_PREFIX"

// Prefix validates the value of TOOL_CONTEXT_HEADER_PREFIX: empty keeps
// the default (the prefix cannot be removed); anything but header-name
// characters is an error naming the variable.
func Prefix(env string) (string, error) {
	if env == "" {
		return DefaultPrefix, nil
	}
	if i := invalidTokenChar(env); i >= 0 {
		return "", fmt.Errorf("%s=%q is not a valid HTTP header-name prefix: character %q at %d is not a letter, digit or one of !#$%%&'*+-.^_`|~",
			PrefixEnv, env, env[i], i)
	}
	return env, nil
}

// isTokenChar reports whether c may appear in an HTTP field name (RFC 9110 token).
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// invalidTokenChar returns the index of the first byte of s that is not a
// token character, or -1.
func invalidTokenChar(s string) int {
	for i := 0; i < len(s); i++ {
		if !isTokenChar(s[i]) {
			return i
		}
	}
	return -1
}

// SOAT's auto-populated identity keys, and the camelCase spellings some
// servers send.
var soatIdentityKeys = map[string]string{
	"session_id":        "session_id",
	"actor_id":          "actor_id",
	"actor_external_id": "actor_external_id",
	"sessionid":         "session_id",
	"actorid":           "actor_id",
	"actorexternalid":   "actor_external_id",
}

// soatIdentityKey returns the canonical identity key a context key names
// ("session_id", "actor_id", "actor_external_id"), matched case-insensitively
// and in snake or camel case, or "".
func soatIdentityKey(key string) string {
	l := strings.ToLower(key)
	if id, ok := soatIdentityKeys[l]; ok {
		return id
	}
	return ""
}

// Bag is the tool context a request carried: key (as received, after
// the prefix) to value, and which keys are SOAT's identity keys.
type Bag struct {
	Values   map[string]string
	Identity map[string]bool
}

var (
	emailLike = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	phoneLike = regexp.MustCompile(`^\+?\(?[0-9][0-9 ().-]{5,}[0-9]$`)
)

// looksLikePII reports whether an external id looks like an e-mail address
// or a phone number (SOAT warns these reach every third-party tool).
func looksLikePII(v string) string {
	v = strings.TrimSpace(v)
	switch {
	case emailLike.MatchString(v):
		return "an e-mail address"
	case phoneLike.MatchString(v):
		digits := 0
		for i := 0; i < len(v); i++ {
			if v[i] >= '0' && v[i] <= '9' {
				digits++
			}
		}
		// E.164 allows 15 digits; a bare short number is more likely an id.
		if digits <= 15 && (digits >= 10 || v[0] == '+' && digits >= 7) {
			return "a phone number"
		}
	}
	return ""
}

// Read builds the context bag from the headers under prefix (matched
// case-insensitively, as HTTP field names are). The key is the suffix after
// the prefix, spelled as h spells the name: net/http's canonical form,
// unless h holds the names as they arrived (see ReadOrdered).
// Warnings: several values for one key (or two spellings that HTTP folds
// into one), a key with characters no header name may hold, and
// pii_in_context when actor_external_id looks like an e-mail or phone number.
func Read(h http.Header, prefix string) (Bag, []model.Warning) {
	var few [16]string // a request's headers, without an allocation
	names := few[:0]
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names) // deterministic warnings and folding
	return ReadOrdered(h, names, prefix)
}

// ReadOrdered is Read over a header whose names are as they
// arrived, listed in order in names: of two spellings HTTP folds into one
// field, the first to arrive is kept.
func ReadOrdered(h http.Header, names []string, prefix string) (Bag, []model.Warning) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	var bag Bag
	var ws []model.Warning
	folded := map[string]string{}
	for _, name := range names {
		if len(name) <= len(prefix) || !model.EqualFoldASCII(name[:len(prefix)], prefix) {
			continue
		}
		key := name[len(prefix):]
		vals := h[name]
		if len(vals) == 0 {
			continue
		}
		if bag.Values == nil {
			bag.Values = make(map[string]string)
			bag.Identity = make(map[string]bool)
		}
		if i := invalidTokenChar(key); i >= 0 {
			ws = append(ws, model.Warning{Code: model.WarnInvalidContextKey, Message: fmt.Sprintf(
				"context header %q holds a character no header name may hold", name)})
		}
		if len(vals) > 1 {
			ws = append(ws, model.Warning{Code: model.WarnDuplicateContextKey, Message: fmt.Sprintf(
				"context key %q arrived with %d values; the first is kept", key, len(vals))})
		}
		lower := strings.ToLower(key)
		if prev, ok := folded[lower]; ok {
			ws = append(ws, model.Warning{Code: model.WarnDuplicateContextKey, Message: fmt.Sprintf(
				"context keys %q and %q name one header field; %q is kept", prev, key, prev)})
			continue
		}
		folded[lower] = key
		bag.Values[key] = vals[0]
		if id := soatIdentityKey(key); id != "" {
			bag.Identity[key] = true
			if id == "actor_external_id" {
				if what := looksLikePII(vals[0]); what != "" {
					ws = append(ws, model.Warning{Code: model.WarnPIIInContext, Message: fmt.Sprintf(
						"%s looks like %s; it reaches every tool endpoint the agent calls", key, what)})
				}
			}
		}
	}
	return bag, ws
}
