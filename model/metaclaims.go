package model

import (
	"maps"
	"reflect"
	"slices"
	"strings"
)

// metaPrefix starts the _meta keys that mirror a token's claims.
const metaPrefix = "agentarea/"

// contextClaimNames are the claims that mirror an agentarea/* _meta key.
var contextClaimNames = []string{"protocol", "task_id", "tool_call_id", "workspace_id",
	"idempotency_key", "agent_id", "end_user_id", "metadata"}

// How a _meta key compares with its claim (contract step 3: every
// agentarea/* key equals its claim, and no context claim lacks its key).
const (
	MetaEqual     = "equal"      // the key equals its claim
	MetaDiffers   = "differs"    // the claim holds another value
	MetaNoClaim   = "no_claim"   // an agentarea/* key the token does not sign
	MetaNoKey     = "no_key"     // a context claim with no _meta key
	MetaNotSigned = "not_signed" // a key outside agentarea/*, or no claims to compare with
)

// MetaClaim is one _meta key against its claim.
type MetaClaim struct {
	Key     string `json:"key"`   // the _meta key (agentarea/<claim>)
	Claim   string `json:"claim"` // the claim's name ("" for a key no claim mirrors)
	Meta    any    `json:"meta,omitempty"`
	Signed  any    `json:"signed,omitempty"` // the claim's value
	Verdict string `json:"verdict"`
}

// MetaAgainstClaims compares each _meta key of the call with its claim, in
// key order, then lists context claims _meta lacks. Nil when the call has
// neither _meta nor a context claim.
func (c *Call) MetaAgainstClaims() []MetaClaim {
	claims, meta := c.Context.ClaimMap(), c.Meta()
	hasContextClaim := false
	for _, name := range contextClaimNames {
		_, ok := claims[name]
		hasContextClaim = hasContextClaim || ok
	}
	if len(meta) == 0 && !hasContextClaim {
		return nil
	}
	keys := slices.Sorted(maps.Keys(meta))
	out := make([]MetaClaim, 0, len(keys))
	for _, k := range keys {
		mc := MetaClaim{Key: k, Meta: meta[k], Verdict: MetaNotSigned}
		if name, ok := strings.CutPrefix(k, metaPrefix); ok && len(claims) > 0 {
			mc.Claim = name
			cv, has := claims[name]
			switch {
			case !has:
				mc.Verdict = MetaNoClaim
			case reflect.DeepEqual(cv, mc.Meta):
				mc.Verdict, mc.Signed = MetaEqual, cv
			default:
				mc.Verdict, mc.Signed = MetaDiffers, cv
			}
		}
		out = append(out, mc)
	}
	for _, name := range contextClaimNames {
		cv, has := claims[name]
		if _, ok := meta[metaPrefix+name]; has && !ok {
			out = append(out, MetaClaim{Key: metaPrefix + name, Claim: name, Signed: cv, Verdict: MetaNoKey})
		}
	}
	return out
}
