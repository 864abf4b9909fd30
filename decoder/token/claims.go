package token

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// checkRegisteredClaims applies step 1's claim rules: it returns the
// problems and the summary of what passed ("iss agentarea, ...").
func checkRegisteredClaims(claims map[string]any, in Input) (problems []string, summary string) {
	now := in.Now
	// The summary is written into one buffer, made a string once.
	var buf [128]byte
	passed := buf[:0]
	ok := func(parts ...string) {
		if len(passed) > 0 {
			passed = append(passed, ", "...)
		}
		for _, p := range parts {
			passed = append(passed, p...)
		}
	}
	iss, aud, expV, iatV := claims["iss"], claims["aud"], claims["exp"], claims["iat"]
	if s, _ := iss.(string); s == Issuer {
		ok("iss agentarea")
	} else {
		problems = append(problems, fmt.Sprintf("wrong iss %s (must be %q)", describe(iss), Issuer))
	}
	if in.InstanceID != "" {
		if audMatches(aud, in.InstanceID) {
			ok("aud is the instance id")
		} else {
			problems = append(problems, fmt.Sprintf("wrong aud %s (instance id is %s)", describe(aud), model.Truncate(in.InstanceID, 80)))
		}
	}
	exp, expOK := numericDate(expV)
	iat, iatOK := numericDate(iatV)
	switch {
	case iatV == nil:
		problems = append(problems, "no iat claim")
	case !iatOK:
		problems = append(problems, "iat is not a number")
	case iat.After(now.Add(ClockSkew)):
		problems = append(problems, fmt.Sprintf("issued in the future: iat is %s ahead (over the %s skew)", HumanDuration(iat.Sub(now)), HumanDuration(ClockSkew)))
	case now.Sub(iat) > MaxAge+ClockSkew:
		problems = append(problems, fmt.Sprintf("issued %s ago: older than %s", HumanDuration(now.Sub(iat)), HumanDuration(MaxAge)))
	default:
		ok("issued ")
		passed = append(appendHumanDuration(passed, now.Sub(iat)), " ago"...)
	}
	switch {
	case expV == nil:
		problems = append(problems, "no exp claim")
	case !expOK:
		problems = append(problems, "exp is not a number")
	case !now.Before(exp.Add(ClockSkew)):
		problems = append(problems, fmt.Sprintf("expired %s ago (exp %s, %s skew allowed)", HumanDuration(now.Sub(exp)), exp.UTC().Format(time.RFC3339), HumanDuration(ClockSkew)))
	default:
		ok("expires in ")
		passed = appendHumanDuration(passed, exp.Sub(now))
	}
	if nbfV, present := claims["nbf"]; present {
		nbf, nbfOK := numericDate(nbfV)
		switch {
		case !nbfOK:
			problems = append(problems, "nbf is not a number")
		case nbf.After(now.Add(ClockSkew)):
			problems = append(problems, fmt.Sprintf("not valid before %s", nbf.UTC().Format(time.RFC3339)))
		}
	}
	return problems, string(passed)
}

func audMatches(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		// An array of strings, as RFC 7519 and golang-jwt read it: one
		// other value spoils it.
		found := false
		for _, v := range a {
			s, ok := v.(string)
			if !ok {
				return false
			}
			found = found || s == want
		}
		return found
	}
	return false
}

// numericDate reads a JWT NumericDate (seconds, possibly fractional).
func numericDate(v any) (time.Time, bool) {
	f, ok := v.(float64)
	if !ok || f != f || f > 1e15 || f < -1e15 {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}

func checkToolClaim(claims map[string]any, toolName string) (*failure, string) {
	v, present := claims["tool"]
	if !present {
		return nil, "no tool claim (checked only when present)"
	}
	if s, ok := v.(string); ok && s == toolName {
		var buf [128]byte
		b := strconv.AppendQuote(append(buf[:0], "tool "...), model.Truncate(s, 80)) // as describe quotes it
		return nil, string(append(b, " equals params.name"...))
	}
	return fail(http.StatusForbidden, jsonrpc.CodeForbidden, fmt.Sprintf("tool claim %s does not match params.name %s", describe(v), describe(toolName))), ""
}
