package token

import (
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"toolscope/decoder/jsonrpc"
)

// Claims are the claims of a call's X-AgentArea-Context token as
// AgentArea mints them: iss agentarea, aud the instance id, exp = iat + 300,
// a fresh jti, tool = params.name, and one claim equal to every agentarea/*
// key of meta.
func Claims(aud, tool string, meta map[string]any, now time.Time) map[string]any {
	claims := map[string]any{
		"iss":  Issuer,
		"aud":  aud,
		"iat":  now.Unix(),
		"exp":  now.Add(Lifetime).Unix(),
		"jti":  uuid.NewString(),
		"tool": tool,
	}
	for k, v := range meta {
		if name, ok := strings.CutPrefix(k, jsonrpc.AgentAreaPrefix); ok {
			claims[name] = v
		}
	}
	return claims
}

// Sign signs claims as AgentArea does: HS256 (typ JWT) with the
// instance's context_secret.
func Sign(claims map[string]any, secret []byte) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims(claims)).SignedString(secret)
}
