package probe

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/token"
	"toolscope/model"
)

// Level says whether a case's failure fails the probe.
type Level int

const (
	// Required: the contract says so; a failure exits 1.
	Required Level = iota
	// Recommended: good practice the contract does not require; required
	// only under --strict.
	Recommended
	// Info: a measurement of the valid call (limits, progress), never
	// required.
	Info
)

// Answer is an HTTP status and a JSON-RPC error code (0: a result, or no
// JSON-RPC error).
type Answer struct {
	HTTPStatus int `json:"http_status"`
	RPCCode    int `json:"rpc_code"`
}

func (a Answer) String() string {
	switch {
	case a.HTTPStatus == 0:
		return "no answer"
	case a.RPCCode == 0 && a.HTTPStatus < 300:
		return fmt.Sprintf("%d result", a.HTTPStatus)
	case a.RPCCode == 0:
		// An HTTP error without a JSON-RPC error: nothing says the tool ran.
		return fmt.Sprintf("%d, no JSON-RPC error", a.HTTPStatus)
	}
	return fmt.Sprintf("%d/%d", a.HTTPStatus, a.RPCCode)
}

// The contract's answers.
var (
	ran          = Answer{HTTPStatus: 200}
	unauthorized = Answer{http.StatusUnauthorized, jsonrpc.CodeUnauthorized}
	forbidden    = Answer{http.StatusForbidden, jsonrpc.CodeForbidden}
	malformed    = Answer{http.StatusBadRequest, jsonrpc.CodeInvalidParams}
	batched      = Answer{http.StatusBadRequest, jsonrpc.CodeInvalidRequest}
)

// Case is one probe: a call as the platform sends it with one thing wrong
// (or nothing), and the contract's answer to it.
type Case struct {
	ID    string // stable: --only, JSON, JUnit
	Title string // what is wrong
	Level Level
	// Expect is the contract's answer; Accept says the tool must run.
	Expect Answer
	// Also is a second answer the contract's table allows (nil: none).
	Also            *Answer
	NeedsCredential bool // run only when a static credential is configured

	// change makes the one thing wrong; nil sends the call as it is.
	change func(c *call, now time.Time)
	// measure, for Info cases, judges the valid call's answer instead.
	measure func(p *prober, r reply) (pass bool, message string)
	// replay sends the call twice with the same idempotency key.
	replay bool
}

// Accept says the contract wants the tool to run.
func (c Case) Accept() bool { return c.Expect.RPCCode == 0 }

// Cases are every probe, in the order they run.
func Cases() []Case {
	return []Case{
		{ID: "valid", Title: "nothing wrong: a fresh token and the credential, the tool must run", Expect: ran},
		{ID: "credential_missing", Title: "the static credential header left out", Expect: unauthorized, NeedsCredential: true,
			change: func(c *call, _ time.Time) { c.noCredential = true }},
		{ID: "token_missing", Title: "no " + model.ContextHeader + " header (the _meta keys still sent)", Expect: unauthorized,
			change: func(c *call, _ time.Time) { c.noToken = true }},
		{ID: "bad_signature", Title: "token signed with another secret", Expect: unauthorized,
			change: func(c *call, _ time.Time) { c.secret = []byte(randomHex(24)) }},
		{ID: "alg_none", Title: "token with alg none and no signature", Expect: unauthorized,
			change: func(c *call, _ time.Time) { c.alg = "none" }},
		{ID: "alg_hs384", Title: "token signed HS384 with the right secret", Expect: unauthorized,
			change: func(c *call, _ time.Time) { c.alg = "HS384" }},
		{ID: "alg_rs256", Title: "token signed RS256 (with a key of its own)", Expect: unauthorized,
			change: func(c *call, _ time.Time) { c.alg = "RS256" }},
		{ID: "expired", Title: "token expired 60 s ago, beyond the 30 s skew", Expect: unauthorized,
			change: func(c *call, now time.Time) {
				setTimes(c, now.Add(-60*time.Second-token.Lifetime), token.Lifetime)
			}},
		{ID: "iat_too_old", Title: "token issued 11 minutes ago (exp still ahead)", Expect: unauthorized,
			change: func(c *call, now time.Time) { setTimes(c, now.Add(-11*time.Minute), 15*time.Minute) }},
		{ID: "wrong_aud", Title: "aud names another instance", Expect: unauthorized,
			change: func(c *call, _ time.Time) { c.claims["aud"] = uuid.NewString() }},
		{ID: "wrong_iss", Title: "iss is not agentarea", Expect: unauthorized,
			change: func(c *call, _ time.Time) { c.claims["iss"] = "agentarea-probe" }},
		{ID: "skew_expired", Title: "token expired 20 s ago, inside the 30 s skew", Expect: ran,
			change: func(c *call, now time.Time) {
				setTimes(c, now.Add(-20*time.Second-token.Lifetime), token.Lifetime)
			}},
		{ID: "skew_iat_ahead", Title: "token issued 20 s in the future, inside the 30 s skew", Expect: ran,
			change: func(c *call, now time.Time) { setTimes(c, now.Add(20*time.Second), token.Lifetime) }},
		{ID: "tool_mismatch", Title: "tool claim names another tool than params.name", Expect: forbidden,
			change: func(c *call, _ time.Time) { c.claims["tool"] = c.tool + "_other" }},
		{ID: "meta_mismatch", Title: "_meta agentarea/workspace_id differs from its claim", Expect: forbidden,
			change: func(c *call, _ time.Time) { c.meta[jsonrpc.MetaWorkspaceID] = uuid.NewString() }},
		{ID: "protocol_unknown_major", Title: `protocol "2", an unknown major, in _meta and token`, Expect: forbidden,
			change: func(c *call, _ time.Time) { setBoth(c, "protocol", "2") }},
		{ID: "key_order", Title: "agentarea/metadata with its keys in another order than the claim", Expect: ran,
			change: func(c *call, _ time.Time) { c.meta[jsonrpc.MetaMetadata] = reordered(c.cc.Metadata) }},
		{ID: "protocol_minor", Title: `protocol "1.7", a newer minor, in _meta and token`, Expect: ran,
			change: func(c *call, _ time.Time) { setBoth(c, "protocol", "1.7") }},
		{ID: "meta_not_object", Title: "_meta is not an object", Expect: malformed,
			change: func(c *call, _ time.Time) { c.metaValue = "agentarea" }},
		{ID: "meta_wrong_type", Title: "agentarea/task_id a number, in _meta and token", Expect: malformed,
			change: func(c *call, _ time.Time) { setBoth(c, "task_id", 12345) }},
		{ID: "token_not_jwt", Title: "a context header value that is not a JWT", Expect: malformed, Also: &unauthorized,
			change: func(c *call, _ time.Time) { c.rawToken = "not-a-jwt" }},
		{ID: "batch", Title: "the tools/call inside a JSON-RPC batch", Expect: batched,
			change: func(c *call, _ time.Time) { c.batch = true }},
		{ID: "idempotent_replay", Title: "the same idempotency key again with a new token: the first result back",
			Level: Recommended, Expect: ran, replay: true},
		{ID: "iat_future", Title: "token issued 5 minutes in the future, beyond the skew", Level: Recommended, Expect: unauthorized,
			change: func(c *call, now time.Time) { setTimes(c, now.Add(5*time.Minute), token.Lifetime) }},
		{ID: "result_limits", Title: "the valid call's result against the platform's limits", Level: Info, Expect: ran,
			measure: measureLimits},
		{ID: "progress_relay", Title: "the valid call's progress against the 0.5 s relay rule", Level: Info, Expect: ran,
			measure: measureProgress},
	}
}

// setTimes sets iat and exp = iat + lifetime.
func setTimes(c *call, iat time.Time, lifetime time.Duration) {
	c.claims["iat"] = iat.Unix()
	c.claims["exp"] = iat.Add(lifetime).Unix()
}

// setBoth sets a context value in _meta and in the token alike.
func setBoth(c *call, name string, v any) {
	c.meta[jsonrpc.AgentAreaPrefix+name] = v
	c.claims[name] = v
}

// reordered writes an object (and the objects in it) with its keys in
// reverse sorted order, where the token's claim has them sorted.
func reordered(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	o := orderedObject{vals: make(map[string]any, len(m))}
	for k, e := range m {
		o.keys = append(o.keys, k)
		o.vals[k] = reordered(e)
	}
	slices.Sort(o.keys)
	slices.Reverse(o.keys)
	return o
}
