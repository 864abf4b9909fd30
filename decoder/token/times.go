package token

import (
	"encoding/json"
	"strings"
	"time"
)

// Times are iat and exp as times and relative to now.
type Times struct {
	IssuedAt  *time.Time `json:"iat,omitempty"`
	ExpiresAt *time.Time `json:"exp,omitempty"`
	Age       string     `json:"age,omitempty"` // "issued 12 s ago, expires in 4 m 48 s"
}

// TimesOf reads iat and exp from claims and says, relative to now, when the
// token was issued and when it expires: "issued 12 s ago, expires in 4 m 48 s".
func TimesOf(claims map[string]any, now time.Time) *Times {
	iat, iatOK := numericDate(claims["iat"])
	exp, expOK := numericDate(claims["exp"])
	if !iatOK && !expOK {
		return nil
	}
	t := &Times{}
	var parts []string
	if iatOK {
		u := iat.UTC()
		t.IssuedAt = &u
		if iat.After(now) {
			parts = append(parts, "issued "+HumanDuration(iat.Sub(now))+" in the future")
		} else {
			parts = append(parts, "issued "+HumanDuration(now.Sub(iat))+" ago")
		}
	}
	if expOK {
		u := exp.UTC()
		t.ExpiresAt = &u
		if exp.After(now) {
			parts = append(parts, "expires in "+HumanDuration(exp.Sub(now)))
		} else {
			parts = append(parts, "expired "+HumanDuration(now.Sub(exp))+" ago")
		}
	}
	t.Age = strings.Join(parts, ", ")
	return t
}

// ClaimText is a claim's value as decode shows it: whole, a string
// unquoted, and iat, exp and nbf followed by their date.
func ClaimText(key string, v any) string {
	text := describeFull(v)
	if key == "iat" || key == "exp" || key == "nbf" {
		if t, ok := numericDate(v); ok {
			text += "  " + t.UTC().Format(time.RFC3339)
		}
	}
	return text
}

// describeFull renders a claim value whole (strings unquoted).
func describeFull(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	return string(b)
}
