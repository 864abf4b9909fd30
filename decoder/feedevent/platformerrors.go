package feedevent

import (
	"regexp"
	"strconv"
	"strings"
)

// The platform's own words for a call it ended (the tool context contract's
// timeout and verification rules; docs/warning-codes.md), as a task feed's
// tool.result carries them.
const (
	// platformTimeoutPrefix starts the error of a call past its timeout:
	// "MCP tool call timed out: no result within <n> s".
	platformTimeoutPrefix = "MCP tool call timed out"
)

// credentialsRejected matches "MCP tool call failed: <host> rejected the
// credentials (HTTP 401)" (or 403).
var credentialsRejected = regexp.MustCompile(`rejected the credentials \(HTTP (40[13])\)`)

// platformTimedOut says whether a result's error is the platform's timeout.
func platformTimedOut(errText string) bool {
	return strings.HasPrefix(strings.TrimSpace(errText), platformTimeoutPrefix)
}

// rejectedStatus is the HTTP status (401 or 403) of a result's error that
// says the server rejected the credentials, else 0.
func rejectedStatus(errText string) int {
	m := credentialsRejected.FindStringSubmatch(errText)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
