package demo

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/google/uuid"
)

// newUUID returns a random (version 4) UUID.
func newUUID() string { return uuid.NewString() }

// newID returns prefix followed by n random bytes in hex ("call_3f9a...").
func newID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
