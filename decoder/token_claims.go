package decoder

import (
	"fmt"
	"time"
)

// registeredValues are the registered claims step 1 reads, each looked up
// once (present: the key is there, its value possibly null).
type registeredValues struct {
	iss, aud, exp, iat, nbf            any
	expPresent, iatPresent, nbfPresent bool
}

func registeredOf(claims map[string]any) registeredValues {
	r := registeredValues{iss: claims["iss"], aud: claims["aud"]}
	r.exp, r.expPresent = claims["exp"]
	r.iat, r.iatPresent = claims["iat"]
	r.nbf, r.nbfPresent = claims["nbf"]
	return r
}

// tokenClaims are the claims the checks read, each found once: the
// registered ones, tool, and the context claims the checks and warnings
// read by name (nil when absent).
type tokenClaims struct {
	registeredValues
	tool                                                              any
	toolPresent                                                       bool
	protocol, taskID, toolCallID, idempotencyKey, metadata, endUserID any
}

// claimsOf reads tokenClaims from a claims map.
func claimsOf(claims map[string]any) tokenClaims {
	c := tokenClaims{registeredValues: registeredOf(claims)}
	c.tool, c.toolPresent = claims["tool"]
	c.protocol, c.taskID, c.toolCallID = claims["protocol"], claims["task_id"], claims["tool_call_id"]
	c.idempotencyKey, c.metadata, c.endUserID = claims["idempotency_key"], claims["metadata"], claims["end_user_id"]
	return c
}

// take records the claim k, read in the token's order (so that a repeated
// key's last value wins, as in the map), when the checks read it, and says
// whether it is a registered claim (isRegisteredClaim).
func (c *tokenClaims) take(k string, v any) bool {
	switch k {
	case "iss":
		c.iss = v
	case "aud":
		c.aud = v
	case "exp":
		c.exp, c.expPresent = v, true
	case "iat":
		c.iat, c.iatPresent = v, true
	case "nbf":
		c.nbf, c.nbfPresent = v, true
	case "tool":
		c.tool, c.toolPresent = v, true
	case "sub", "jti":
	case "protocol":
		c.protocol = v
		return false
	case "task_id":
		c.taskID = v
		return false
	case "tool_call_id":
		c.toolCallID = v
		return false
	case "idempotency_key":
		c.idempotencyKey = v
		return false
	case "metadata":
		c.metadata = v
		return false
	case "end_user_id":
		c.endUserID = v
		return false
	default:
		return false
	}
	return true
}

// checkRegisteredClaims applies step 1's claim rules: it returns the
// problems and appends to summary what passed ("iss agentarea, ...").
func checkRegisteredClaims(claims registeredValues, in VerifyInput, summary []byte) (problems []string, _ []byte) {
	now := in.Now
	ok := func(parts ...string) {
		if len(summary) > 0 {
			summary = append(summary, ", "...)
		}
		for _, p := range parts {
			summary = append(summary, p...)
		}
	}
	if iss, _ := claims.iss.(string); iss == TokenIssuer {
		ok("iss agentarea")
	} else {
		problems = append(problems, fmt.Sprintf("wrong iss %s (must be %q)", describe(claims.iss), TokenIssuer))
	}
	if in.InstanceID != "" {
		if audMatches(claims.aud, in.InstanceID) {
			ok("aud is the instance id")
		} else {
			problems = append(problems, fmt.Sprintf("wrong aud %s (instance id is %s)", describe(claims.aud), clip(in.InstanceID)))
		}
	}
	exp, expOK := numericDate(claims.exp)
	iat, iatOK := numericDate(claims.iat)
	switch {
	case claims.iat == nil:
		problems = append(problems, "no iat claim")
	case !iatOK:
		problems = append(problems, "iat is not a number")
	case iat.After(now.Add(ClockSkew)):
		problems = append(problems, fmt.Sprintf("issued in the future: iat is %s ahead (over the %s skew)", HumanDuration(iat.Sub(now)), HumanDuration(ClockSkew)))
	case now.Sub(iat) > MaxTokenAge+ClockSkew:
		problems = append(problems, fmt.Sprintf("issued %s ago: older than %s", HumanDuration(now.Sub(iat)), HumanDuration(MaxTokenAge)))
	default:
		ok("issued ")
		summary = append(appendHumanDuration(summary, now.Sub(iat)), " ago"...)
	}
	switch {
	case claims.exp == nil:
		problems = append(problems, "no exp claim")
	case !expOK:
		problems = append(problems, "exp is not a number")
	case !now.Before(exp.Add(ClockSkew)):
		problems = append(problems, fmt.Sprintf("expired %s ago (exp %s, %s skew allowed)", HumanDuration(now.Sub(exp)), exp.UTC().Format(time.RFC3339), HumanDuration(ClockSkew)))
	default:
		ok("expires in ")
		summary = appendHumanDuration(summary, exp.Sub(now))
	}
	if claims.nbfPresent {
		nbf, nbfOK := numericDate(claims.nbf)
		switch {
		case !nbfOK:
			problems = append(problems, "nbf is not a number")
		case nbf.After(now.Add(ClockSkew)):
			problems = append(problems, fmt.Sprintf("not valid before %s", nbf.UTC().Format(time.RFC3339)))
		}
	}
	return problems, summary
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

func checkToolClaim(claims *tokenClaims, toolName string, details *detailArena) (*failure, string) {
	v, present := claims.tool, claims.toolPresent
	if !present {
		return nil, "no tool claim (checked only when present)"
	}
	if s, ok := v.(string); ok && s == toolName {
		var buf [128]byte
		b := appendQuote(append(buf[:0], "tool "...), clip(s)) // describe(s)
		return nil, details.keep(append(b, " equals params.name"...))
	}
	return fail(StatusForbidden, CodeForbidden, fmt.Sprintf("tool claim %s does not match params.name %s", describe(v), describe(toolName))), ""
}
