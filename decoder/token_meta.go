package decoder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"toolscope/model"
)

// agentAreaKeys lists the agentarea/* keys of _meta, sorted.
func agentAreaKeys(meta map[string]any) []string { return appendAgentAreaKeys(nil, meta) }

// appendAgentAreaKeys appends agentAreaKeys(meta) to keys (the caller's
// buffer, so that a call's check allocates no list).
func appendAgentAreaKeys(keys []string, meta map[string]any) []string {
	for k := range meta {
		if strings.HasPrefix(k, AgentAreaPrefix) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sortStrings(keys)
	return keys
}

// appendAgentAreaMembers is appendAgentAreaKeys that also appends each
// key's value to values, sorted alike, so that step 3 looks none up again;
// values is nil when there are too many keys to sort them together by
// insertion (the caller then looks the values up).
func appendAgentAreaMembers(keys []string, values []any, meta map[string]any) ([]string, []any) {
	for k, v := range meta {
		if strings.HasPrefix(k, AgentAreaPrefix) {
			keys, values = append(keys, k), append(values, v)
		}
	}
	switch {
	case len(keys) == 0:
		return nil, nil
	case len(keys) > maxFastFields:
		sortStrings(keys)
		return keys, nil
	}
	sortClaimsStable(keys, values) // map keys are distinct: any sort is the sort
	return keys, values
}

// contextClaimNames lists the claims that are not registered JWT claims
// (the call's context), sorted so that findings come in a stable order.
// The names are appended to the caller's buffer.
func contextClaimNames(claims map[string]any, names []string) []string {
	for k := range claims {
		if !isRegisteredClaim(k) {
			names = append(names, k)
		}
	}
	sortStrings(names)
	return names
}

// contextClaimsOf is contextClaimNames with each claim's value, for claims
// the quick reader listed (members, in the token's order, repeats
// included; known false: not listed, values are then nil): no map walk, no
// lookups, and no sort when the token came sorted (golang-jwt and
// encoding/json sign claims in key order). The result reuses members'
// buffers.
func contextClaimsOf(claims map[string]any, known bool, members memberList) (names []string, values []any) {
	if !known {
		return contextClaimNames(claims, members.keys[:0]), nil
	}
	// Members move only when one before them is dropped: the common token
	// (its registered claims already left out, see memberList) moves none.
	n := 0
	for i, k := range members.keys {
		if isRegisteredClaim(k) {
			continue
		}
		if n != i {
			members.keys[n], members.values[n] = k, members.values[i]
		}
		n++
	}
	names, values = members.keys[:n], members.values[:n]
	if !slices.IsSorted(names) {
		sortClaimsStable(names, values)
	}
	// A repeated key is one claim, whose value is the last one (as in the map).
	n = 0
	for i := range names {
		if n > 0 && names[n-1] == names[i] {
			values[n-1] = values[i]
			continue
		}
		if n != i {
			names[n], values[n] = names[i], values[i]
		}
		n++
	}
	return names[:n], values[:n]
}

// sortClaimsStable sorts names, and values alike, keeping repeated names in
// their order (an insertion sort: a token has a few dozen claims at most).
func sortClaimsStable(names []string, values []any) {
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
			values[j], values[j-1] = values[j-1], values[j]
		}
	}
}

// checkMetaClaims is step 3: every agentarea/* key of _meta equals its claim
// (objects compared regardless of key order), values have the contract's
// types (a malformed one is 400/-32602), and the protocol's major is known.
// names are the context claims, from contextClaimNames, and values their
// values when known (contextClaimsOf), else nil; metaVals are keys' values
// when known (appendAgentAreaMembers), else nil.
func checkMetaClaims(meta map[string]any, keys []string, metaVals []any, claims map[string]any, tc *tokenClaims, names []string, values []any, warn func(model.WarningCode, string, ...any), details *detailArena) (*failure, string) {
	// Each value is looked up once (unless given) and kept for the
	// comparison; the buffers are cleared only when they are used.
	metaValues, claimValues := metaVals, values
	if metaValues == nil && len(keys) > 0 {
		var buf [maxFastFields]any
		metaValues = buf[:0]
		for _, k := range keys {
			metaValues = append(metaValues, meta[k])
		}
	}
	if claimValues == nil && len(names) > 0 {
		var buf [maxFastFields]any
		claimValues = buf[:0]
		for _, name := range names {
			claimValues = append(claimValues, claims[name])
		}
	}
	// Malformed values first: they make the call unreadable, not mismatched.
	for i, k := range keys {
		if p := malformedContextValue(strings.TrimPrefix(k, AgentAreaPrefix), metaValues[i]); p != "" {
			return fail(StatusBadRequest, CodeInvalidParams, "malformed _meta "+k+": "+p), ""
		}
	}
	for i, name := range names {
		if p := malformedContextValue(name, claimValues[i]); p != "" {
			return fail(StatusBadRequest, CodeInvalidParams, "malformed claim "+name+": "+p), ""
		}
	}
	var problems []string
	proto, hasProto := tc.protocol.(string)
	if !hasProto {
		if s, ok := meta[MetaProtocol].(string); ok {
			proto, hasProto = s, true
		}
	}
	if hasProto {
		if major, _, _ := strings.Cut(proto, "."); major != contextProtocolMajor {
			problems = append(problems, fmt.Sprintf("unknown major protocol %q (this is contract %s)", proto, contextProtocolMajor))
		}
	} else {
		warn(model.WarnProtocolMissing, "neither the token nor _meta names agentarea/protocol")
	}
	mismatches, j := 0, 0
	for i, k := range keys {
		name := strings.TrimPrefix(k, AgentAreaPrefix)
		// keys and names are sorted alike (keys are names behind one
		// prefix): names[j] is the claim, if a context claim.
		for j < len(names) && names[j] < name {
			j++
		}
		var cv any
		present := j < len(names) && names[j] == name
		if present {
			cv = claimValues[j]
		} else {
			cv, present = claims[name] // a registered claim (tool, iss...)
		}
		var m string
		switch {
		case !present:
			m = fmt.Sprintf("%s has no claim", k)
		case !jsonEqual(metaValues[i], cv):
			m = fmt.Sprintf("%s is %s but the claim is %s", k, describe(metaValues[i]), describe(cv))
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
		return fail(StatusForbidden, CodeForbidden, prefix+strings.Join(problems, "; ")), ""
	}
	var buf [96]byte
	b := append(strconv.AppendInt(buf[:0], int64(len(keys)), 10), " agentarea/* keys equal their claims"...)
	if hasProto {
		b = append(appendQuote(append(b, "; protocol "...), proto), " known"...)
	}
	return nil, details.keep(b)
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
			return fmt.Sprintf("%q is not \"<major>\" or \"<major>.<minor>\"", clip(s))
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
// check.
func contractWarnings(claims, meta map[string]any, names []string, warn func(model.WarningCode, string, ...any)) {
	var keysBuf [maxFastFields]string
	tc := claimsOf(claims)
	contractWarningsKeyed(claims, &tc, meta, appendAgentAreaKeys(keysBuf[:0], meta), names, warn)
}

// contractWarningsKeyed is contractWarnings given meta's agentarea/* keys
// (agentAreaKeys): sorted as names are, a merge walk finds each name's key
// without a lookup; tc are claims' values (claimsOf).
func contractWarningsKeyed(claims map[string]any, tc *tokenClaims, meta map[string]any, metaKeys, names []string, warn func(model.WarningCode, string, ...any)) {
	j := 0
	for _, name := range names {
		for j < len(metaKeys) && metaKeys[j][len(AgentAreaPrefix):] < name {
			j++
		}
		if j == len(metaKeys) || metaKeys[j][len(AgentAreaPrefix):] != name {
			warn(model.WarnClaimMissingFromMeta, "the token's context claim %s has no agentarea/%s key in _meta", name, name)
		}
	}
	exp, expOK := numericDate(tc.exp)
	iat, iatOK := numericDate(tc.iat)
	if expOK && iatOK && exp.Sub(iat) != TokenLifetime {
		warn(model.WarnTokenLifetime, "exp - iat is %s; the contract says exp = iat + 300", HumanDuration(exp.Sub(iat)))
	}
	// The context values come from the claims, or from _meta when the token
	// has none.
	src := *tc
	if len(claims) == 0 {
		src = claimsOf(stripPrefix(meta))
	}
	task, _ := src.taskID.(string)
	call, _ := src.toolCallID.(string)
	if key, ok := src.idempotencyKey.(string); ok && task != "" && call != "" && !isTaskColonCall(key, task, call) {
		warn(model.WarnIdempotencyKeyFormat, "idempotency_key %s is not task_id:tool_call_id", describe(key))
	}
	if md, ok := src.metadata.(map[string]any); ok && jsonBytesAtMost(md) > maxMetadataBytes {
		if n, ok := jsonBytes(md); ok && n > maxMetadataBytes {
			warn(model.WarnMetadataTooLarge, "metadata is %d bytes of JSON; the platform accepts at most %d", n, maxMetadataBytes)
		}
	}
	if eu, ok := src.endUserID.(string); ok {
		if n := len([]rune(eu)); n < 1 || n > maxEndUserIDChars {
			warn(model.WarnEndUserIDLength, "end_user_id is %d characters; the platform accepts 1 to %d", n, maxEndUserIDChars)
		}
	}
}

func stripPrefix(meta map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range meta {
		if strings.HasPrefix(k, AgentAreaPrefix) {
			out[strings.TrimPrefix(k, AgentAreaPrefix)] = v
		}
	}
	return out
}

// stripPrefixInverse builds the _meta a call carrying these claims would
// have, so a decode without a call does not warn of claims "missing" from it.
func stripPrefixInverse(claims map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range claims {
		if !isRegisteredClaim(k) {
			out[AgentAreaPrefix+k] = v
		}
	}
	return out
}

// jsonBytes is the size of v as compact UTF-8 JSON, the bytes a caller
// sends: json.Marshal's HTML escaping (< as \u003c, six bytes) would count
// what no one sent.
func jsonBytes(v any) (int, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return 0, false
	}
	return len(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})), true
}

// jsonBytesAtMost bounds jsonBytes(v) from above without encoding: a string
// escapes to at most six bytes per byte, a number prints in at most 24. Only
// metadata that may be over the limit is then encoded to be measured.
func jsonBytesAtMost(v any) int {
	switch x := v.(type) {
	case string:
		return 2 + 6*len(x)
	case map[string]any:
		n := 2
		for k, e := range x {
			n += jsonBytesAtMost(k) + 2 + jsonBytesAtMost(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n += jsonBytesAtMost(e) + 1
		}
		return n
	case nil, bool, float64:
		return 24
	}
	return maxMetadataBytes + 1 // another type: encode it
}

// isTaskColonCall says whether key is task + ":" + call (without building it).
func isTaskColonCall(key, task, call string) bool {
	return len(key) == len(task)+1+len(call) && key[:len(task)] == task && key[len(task)] == ':' && key[len(task)+1:] == call
}
