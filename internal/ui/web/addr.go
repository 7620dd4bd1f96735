package web

import (
	"crypto/rand"
	"encoding/hex"
)

// DefaultAddr is where the view listens unless told: loopback (checked by
// loopback.CheckAddr), a port the kernel picks.
const DefaultAddr = "127.0.0.1:0"

// NewToken is a random token for the view's URL.
func NewToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return hex.EncodeToString(b)
}
