package demo

import (
	"time"

	"toolscope/decoder/token"
)

// tokenFault is how a scenario mis-signs a call's token, to show what a
// server answers (the platform itself never does this).
type tokenFault int

const (
	tokenGood          tokenFault = iota
	tokenWrongInstance            // aud names another instance: 401/-32001
	tokenWrongTool                // tool claim names another tool: 403/-32003
)

// mintToken signs the X-AgentArea-Context token of one call as AgentArea
// does (token.Claims, token.Sign).
func mintToken(secret []byte, aud, tool string, meta map[string]any, now time.Time) (string, error) {
	return token.Sign(token.Claims(aud, tool, meta, now), secret)
}
