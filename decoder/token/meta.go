package token

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// agentAreaKeys appends the agentarea/* keys of _meta to keys, sorted
// (the caller's array holds a call's few).
func agentAreaKeys(keys []string, meta map[string]any) []string {
	for k := range meta {
		if strings.HasPrefix(k, jsonrpc.AgentAreaPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// contextClaimNames appends the claims that are not registered JWT claims
// (the call's context) to names, sorted so that findings come in a stable
// order (the caller's array holds a token's few).
func contextClaimNames(names []string, claims map[string]any) []string {
	for k := range claims {
		if !isRegisteredClaim(k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

// checkMetaClaims is step 3: every agentarea/* key of _meta equals its claim
// (objects compared regardless of key order), values have the contract's
// types (a malformed one is 400/-32602), and the protocol's major is known.
// keys are meta's agentarea/* keys (agentAreaKeys), names the context
// claims (contextClaimNames).
func checkMetaClaims(meta, claims map[string]any, keys, names []string, warn func(model.WarningCode, string, ...any)) (*failure, string) {
	// Malformed values first: they make the call unreadable, not mismatched.
	for _, k := range keys {
		if p := malformedContextValue(strings.TrimPrefix(k, jsonrpc.AgentAreaPrefix), meta[k]); p != "" {
			return fail(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "malformed _meta "+k+": "+p), ""
		}
	}
	for _, name := range names {
		if p := malformedContextValue(name, claims[name]); p != "" {
			return fail(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "malformed claim "+name+": "+p), ""
		}
	}
	var problems []string
	proto, hasProto := claims["protocol"].(string)
	if !hasProto {
		proto, hasProto = meta[jsonrpc.MetaProtocol].(string)
	}
	if hasProto {
		if major, _, _ := strings.Cut(proto, "."); major != ProtocolMajor {
			problems = append(problems, fmt.Sprintf("unknown major protocol %q (this is contract %s)", proto, ProtocolMajor))
		}
	} else {
		warn(model.WarnProtocolMissing, "neither the token nor _meta names agentarea/protocol")
	}
	mismatches := 0
	for _, k := range keys {
		cv, present := claims[strings.TrimPrefix(k, jsonrpc.AgentAreaPrefix)]
		var m string
		switch {
		case !present:
			m = fmt.Sprintf("%s has no claim", k)
		case !jsonEqual(meta[k], cv):
			m = fmt.Sprintf("%s is %s but the claim is %s", k, describe(meta[k]), describe(cv))
		default:
			continue
		}
		mismatches++
		warn(model.WarnMetaClaimMismatch, "%s", m)
		problems = append(problems, m)
	}
	if len(problems) > 0 {
		prefix := ""
		if mismatches > 0 {
			prefix = "token does not match the call: "
		}
		return fail(http.StatusForbidden, jsonrpc.CodeForbidden, prefix+strings.Join(problems, "; ")), ""
	}
	if hasProto {
		return nil, strconv.Itoa(len(keys)) + " agentarea/* keys equal their claims; protocol " + strconv.Quote(proto) + " known"
	}
	return nil, strconv.Itoa(len(keys)) + " agentarea/* keys equal their claims"
}

// malformedContextValue says what is wrong with a context value's type or
// form, or "".
func malformedContextValue(name string, v any) string {
	switch {
	case name == "metadata":
		if _, ok := v.(map[string]any); !ok {
			return "must be a JSON object, is " + jsonType(v)
		}
	case isStringContextClaim(name):
		s, ok := v.(string)
		if !ok {
			return "must be a string, is " + jsonType(v)
		}
		if name == "protocol" && !validProtocol(s) {
			return fmt.Sprintf("%q is not \"<major>\" or \"<major>.<minor>\"", model.Truncate(s, 80))
		}
	}
	return ""
}

func validProtocol(s string) bool {
	major, minor, hasMinor := strings.Cut(s, ".")
	return allDigits(major) && (!hasMinor || allDigits(minor))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// contractWarnings flags what the contract promises but a server need not
// check: every context claim has its _meta key, exp = iat + 300, the
// idempotency key is task_id:tool_call_id, metadata and end_user_id are
// within the platform's bounds.
func contractWarnings(claims, meta map[string]any, names []string, warn func(model.WarningCode, string, ...any)) {
	for _, name := range names {
		if _, ok := meta[jsonrpc.AgentAreaPrefix+name]; !ok {
			warn(model.WarnClaimMissingFromMeta, "the token's context claim %s has no agentarea/%s key in _meta", name, name)
		}
	}
	if jti, present := claims["jti"]; present {
		if s, ok := jti.(string); !ok || !isUUID(s) {
			warn(model.WarnJTINotUUID, "jti %s is not a UUID; the platform mints a random UUID per token", describe(jti))
		}
	}
	exp, expOK := numericDate(claims["exp"])
	iat, iatOK := numericDate(claims["iat"])
	if expOK && iatOK && exp.Sub(iat) != Lifetime {
		warn(model.WarnTokenLifetime, "exp - iat is %s; the contract says exp = iat + 300", HumanDuration(exp.Sub(iat)))
	}
	// The context values come from the claims, or from _meta when the token
	// has none.
	src := claims
	if len(claims) == 0 {
		src = stripPrefix(meta)
	}
	task, _ := src["task_id"].(string)
	call, _ := src["tool_call_id"].(string)
	if key, ok := src["idempotency_key"].(string); ok && task != "" && call != "" && key != task+":"+call {
		warn(model.WarnIdempotencyKeyFormat, "idempotency_key %s is not task_id:tool_call_id", describe(key))
	}
	if md, ok := src["metadata"].(map[string]any); ok {
		if n := jsonBytes(md); n > maxMetadataBytes {
			warn(model.WarnMetadataTooLarge, "metadata is %d bytes of JSON; the platform accepts at most %d", n, maxMetadataBytes)
		}
	}
	if eu, ok := src["end_user_id"].(string); ok {
		if n := len([]rune(eu)); n < 1 || n > maxEndUserIDChars {
			warn(model.WarnEndUserIDLength, "end_user_id is %d characters; the platform accepts 1 to %d", n, maxEndUserIDChars)
		}
	}
}

// isUUID says whether s is a UUID in its canonical text form,
// 8-4-4-4-12 hex digits (any case), as the platform writes a jti.
func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return len(s) == 36 && err == nil
}

func stripPrefix(meta map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range meta {
		if name, ok := strings.CutPrefix(k, jsonrpc.AgentAreaPrefix); ok {
			out[name] = v
		}
	}
	return out
}

// claimsAsMeta builds the _meta a call carrying these claims would have, so
// a decode without a call does not warn of claims "missing" from it.
func claimsAsMeta(claims map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range claims {
		if !isRegisteredClaim(k) {
			out[jsonrpc.AgentAreaPrefix+k] = v
		}
	}
	return out
}

// jsonBytes is the size of v as compact UTF-8 JSON, the bytes a caller
// sends: only what JSON requires is escaped (json.Marshal's HTML escaping,
// < as \u003c, six bytes, would count what no one sent).
func jsonBytes(v any) int {
	var buf [512]byte
	return len(model.AppendJSONValue(buf[:0], v))
}
