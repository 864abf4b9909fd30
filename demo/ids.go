package demo

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// newUUID returns a random (version 4) UUID, as AgentArea uses for task,
// instance, token (jti) and event ids.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newID returns prefix followed by n random bytes in hex ("call_3f9a...").
func newID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
