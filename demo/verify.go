package demo

import (
	"net/http"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// verdict is the server's answer to one tools/call's context token.
type verdict struct {
	ok     bool
	status int
	code   int
	reason string
	claims map[string]any
}

// verify runs the contract's verification with toolscope's own decoder, so the
// demo server and the tap judge a token by one implementation: signature
// (HS256 only), exp/iat, aud, iss; then the tool claim; then every
// agentarea/* _meta key against its claim.
func (s *demoServer) verify(token string, m *jsonrpc.Message, now time.Time) verdict {
	c := decoder.VerifyContext(decoder.VerifyInput{
		Token:             token,
		Secrets:           s.secrets,
		InstanceID:        s.instanceID,
		ToolName:          m.Call.Name,
		Meta:              m.Meta.AgentArea,
		CredentialPresent: true, // the guard checked the credential first
		Now:               now,
	})
	if c.Verdict == model.VerdictValid {
		return verdict{ok: true, claims: c.Claims}
	}
	v := verdict{status: c.HTTPStatus, code: c.RPCCode, reason: c.Reason}
	if v.status == 0 || v.code == 0 {
		v.status, v.code = http.StatusUnauthorized, jsonrpc.CodeUnauthorized
	}
	if v.reason == "" {
		v.reason = "context token rejected"
	}
	return v
}
