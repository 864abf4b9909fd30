package decoder

import (
	"regexp"
	"strconv"
	"strings"
)

// The platform's own words for a call it ended (agentarea-mcp-tool-context.md,
// "Timeout" and "Verification"), as a task feed's tool.result carries them.
const (
	// PlatformTimeoutPrefix starts the error of a call past its timeout:
	// "MCP tool call timed out: no result within <n> s".
	PlatformTimeoutPrefix = "MCP tool call timed out"
)

// credentialsRejected matches "MCP tool call failed: <host> rejected the
// credentials (HTTP 401)" (or 403).
var credentialsRejected = regexp.MustCompile(`rejected the credentials \(HTTP (40[13])\)`)

// PlatformTimedOut says whether a result's error is the platform's timeout.
func PlatformTimedOut(errText string) bool {
	return strings.HasPrefix(strings.TrimSpace(errText), PlatformTimeoutPrefix)
}

// RejectedStatus is the HTTP status (401 or 403) of a result's error that
// says the server rejected the credentials, else 0.
func RejectedStatus(errText string) int {
	m := credentialsRejected.FindStringSubmatch(errText)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
