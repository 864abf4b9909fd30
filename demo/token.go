package demo

import (
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/decoder"
)

// tokenLifetime is the contract's exp - iat.
const tokenLifetime = 300 * time.Second

// tokenFault is how a scenario mis-signs a call's token, to show what a
// server answers (the platform itself never does this).
type tokenFault int

const (
	tokenGood          tokenFault = iota
	tokenWrongInstance            // aud names another instance: 401/-32001
	tokenWrongTool                // tool claim names another tool: 403/-32003
)

// mintToken signs the X-AgentArea-Context token of one call as AgentArea
// does: HS256 with the instance's secret, iss agentarea, aud the instance id,
// exp = iat + 300, a fresh jti, tool = params.name, and one claim equal to
// every agentarea/* _meta key.
func mintToken(secret []byte, aud, tool string, meta map[string]any, now time.Time) (string, error) {
	claims := jwt.MapClaims{
		"iss":  "agentarea",
		"aud":  aud,
		"iat":  now.Unix(),
		"exp":  now.Add(tokenLifetime).Unix(),
		"jti":  newUUID(),
		"tool": tool,
	}
	for k, v := range meta {
		if name, ok := strings.CutPrefix(k, decoder.AgentAreaPrefix); ok {
			claims[name] = v
		}
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
}
