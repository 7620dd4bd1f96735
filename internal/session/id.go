package session

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// IDLen is the length of a full session id (a ULID).
const IDLen = ulid.EncodedSize

// NewUUID returns a random (version 4) UUID: the form of the provider
// session ids csa chooses for Claude Code and csa-agent before they start.
func NewUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// NewID returns a fresh ULID; its time prefix keeps directory listings in
// creation order.
func NewID(now time.Time) string {
	return ulid.MustNew(ulid.Timestamp(now), rand.Reader).String()
}

// ParseID checks that s is a whole ULID that can name a new session
// (case-insensitive) and returns it upper-cased, as csa names sessions.
func ParseID(s string) (string, error) {
	up, err := NormalizePrefix(s)
	if err != nil {
		return "", err
	}
	if len(up) != IDLen {
		return "", &InvalidIDError{ID: s, Why: fmt.Sprintf("a new session's id is a whole ULID of %d characters", IDLen)}
	}
	if _, err := ulid.ParseStrict(up); err != nil {
		return "", &InvalidIDError{ID: s, Why: err.Error()}
	}
	return up, nil
}

// crockford is the ULID alphabet; I, L, O and U are not in it.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NormalizePrefix upper-cases s and checks that it can be (part of) a ULID.
// Anything else, notably path-like input such as "../x", is rejected here,
// before it can reach a path join.
func NormalizePrefix(s string) (string, error) {
	if s == "" {
		return "", &InvalidIDError{ID: s, Why: "empty id"}
	}
	if len(s) > IDLen {
		return "", &InvalidIDError{ID: s, Why: fmt.Sprintf("longer than %d characters", IDLen)}
	}
	up := strings.ToUpper(s)
	for _, r := range up {
		if !strings.ContainsRune(crockford, r) {
			return "", &InvalidIDError{ID: s, Why: fmt.Sprintf("%q is not a ULID character", r)}
		}
	}
	if len(up) == IDLen && up[0] > '7' {
		return "", &InvalidIDError{ID: s, Why: "timestamp overflows"}
	}
	return up, nil
}

// InvalidIDError reports an id that cannot name a session.
type InvalidIDError struct{ ID, Why string }

func (e *InvalidIDError) Error() string {
	return fmt.Sprintf("invalid session id %q: %s (ids are ULIDs or unique prefixes of them)", e.ID, e.Why)
}

// NotFoundError reports a prefix that matches no session.
type NotFoundError struct{ Prefix string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no session matches %q", e.Prefix) }

// AmbiguousError reports a prefix that matches several sessions.
type AmbiguousError struct {
	Prefix     string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	const show = 10
	c := e.Candidates
	more := ""
	if len(c) > show {
		more = fmt.Sprintf(" and %d more", len(c)-show)
		c = c[:show]
	}
	return fmt.Sprintf("session id %q is ambiguous: matches %s%s", e.Prefix, strings.Join(c, ", "), more)
}
