package decoder

import (
	"fmt"
	"strings"
	"time"
)

// checkRegisteredClaims applies step 1's claim rules and describes them.
func checkRegisteredClaims(claims map[string]any, in VerifyInput) (problems []string, summary string) {
	now := in.Now
	var ok []string
	if iss, _ := claims["iss"].(string); iss == TokenIssuer {
		ok = append(ok, "iss agentarea")
	} else {
		problems = append(problems, fmt.Sprintf("wrong iss %s (must be %q)", describe(claims["iss"]), TokenIssuer))
	}
	if in.InstanceID != "" {
		if audMatches(claims["aud"], in.InstanceID) {
			ok = append(ok, "aud is the instance id")
		} else {
			problems = append(problems, fmt.Sprintf("wrong aud %s (instance id is %s)", describe(claims["aud"]), clip(in.InstanceID)))
		}
	}
	exp, expOK := numericDate(claims["exp"])
	iat, iatOK := numericDate(claims["iat"])
	switch {
	case claims["iat"] == nil:
		problems = append(problems, "no iat claim")
	case !iatOK:
		problems = append(problems, "iat is not a number")
	case iat.After(now.Add(ClockSkew)):
		problems = append(problems, fmt.Sprintf("issued in the future: iat is %s ahead (over the %s skew)", HumanDuration(iat.Sub(now)), HumanDuration(ClockSkew)))
	case now.Sub(iat) > MaxTokenAge+ClockSkew:
		problems = append(problems, fmt.Sprintf("issued %s ago: older than %s", HumanDuration(now.Sub(iat)), HumanDuration(MaxTokenAge)))
	default:
		ok = append(ok, "issued "+HumanDuration(now.Sub(iat))+" ago")
	}
	switch {
	case claims["exp"] == nil:
		problems = append(problems, "no exp claim")
	case !expOK:
		problems = append(problems, "exp is not a number")
	case !now.Before(exp.Add(ClockSkew)):
		problems = append(problems, fmt.Sprintf("expired %s ago (exp %s, %s skew allowed)", HumanDuration(now.Sub(exp)), exp.UTC().Format(time.RFC3339), HumanDuration(ClockSkew)))
	default:
		ok = append(ok, "expires in "+HumanDuration(exp.Sub(now)))
	}
	if v, present := claims["nbf"]; present {
		nbf, nbfOK := numericDate(v)
		switch {
		case !nbfOK:
			problems = append(problems, "nbf is not a number")
		case nbf.After(now.Add(ClockSkew)):
			problems = append(problems, fmt.Sprintf("not valid before %s", nbf.UTC().Format(time.RFC3339)))
		}
	}
	return problems, strings.Join(ok, ", ")
}

func audMatches(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		for _, v := range a {
			if s, _ := v.(string); s == want {
				return true
			}
		}
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
		return nil, fmt.Sprintf("tool %s equals params.name", describe(s))
	}
	return fail(StatusForbidden, CodeForbidden, fmt.Sprintf("tool claim %s does not match params.name %s", describe(v), describe(toolName))), ""
}
