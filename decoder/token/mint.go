package token

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

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
		"jti":  newUUID(),
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

// newUUID is a random (version 4) UUID, as AgentArea mints a jti.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
