package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrorKind tells configuration problems apart.
type ErrorKind string

// Kinds of configuration problems.
const (
	KindRead       ErrorKind = "read"        // the file could not be read
	KindSyntax     ErrorKind = "syntax"      // the file is not valid TOML
	KindUnknownKey ErrorKind = "unknown_key" // a key or table csa does not know
	KindType       ErrorKind = "type"        // a value of the wrong type
	KindValue      ErrorKind = "value"       // a value of the right type that is not allowed
)

// ErrUnknownKey is returned (wrapped) by Loaded.Get for a key that is not
// part of the configuration.
var ErrUnknownKey = errors.New("unknown config key")

// Error is a problem in a configuration file. Its message has the form
//
//	path:line:col: message
//
// where line and col are left out when unknown. When a file has several
// problems, Load returns them joined with errors.Join, in file order;
// errors.As finds the first.
type Error struct {
	Kind ErrorKind
	Path string // the file
	Line int    // 1-based; 0 if unknown
	Col  int    // 1-based; 0 if unknown
	Key  string // dotted key, e.g. "tools.codex.path"; "" if none applies
	Msg  string // the message, naming Key when there is one
	Err  error  // underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteString(":" + strconv.Itoa(e.Col))
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// problem is a problem found with a key before its position is known.
type problem struct {
	kind   ErrorKind
	key    []string
	detail string // what is wrong, without the key
}

// message returns the Error message of p.
func (p problem) message() string {
	k := joinKey(p.key)
	switch p.kind {
	case KindUnknownKey:
		if len(p.key) >= 2 && p.key[0] == "tools" && !knownTool(p.key[1]) {
			return fmt.Sprintf("unknown key %q: not a tool (valid tools: %s)", joinKey(p.key[:2]), toolNames())
		}
		return fmt.Sprintf("unknown key %q", k)
	case KindType:
		return fmt.Sprintf("wrong type for %q: %s", k, p.detail)
	default:
		return fmt.Sprintf("invalid value for %q: %s", k, p.detail)
	}
}

// locate turns problems found in the file at path into errors, placed with
// the file's index: unknown keys at the key, other problems at the value.
func locate(path string, ix index, ps []problem) error {
	errs := make([]*Error, 0, len(ps))
	for _, p := range ps {
		e := &Error{Kind: p.kind, Path: path, Key: joinKey(p.key), Msg: p.message()}
		if ent, ok := ix.find(e.Key); ok {
			pos := ent.valPos
			if p.kind == KindUnknownKey {
				pos = ent.keyPos
			}
			e.Line, e.Col = pos.line, pos.col
		}
		errs = append(errs, e)
	}
	return join(errs)
}

// join returns the only error of errs, or all of them in file order joined
// with errors.Join.
func join(errs []*Error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	slices.SortStableFunc(errs, func(a, b *Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	all := make([]error, len(errs))
	for i, e := range errs {
		all[i] = e
	}
	return errors.Join(all...)
}

// joinKey renders key parts as a dotted TOML key, quoting parts that are
// not bare keys.
func joinKey(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		if isBare(p) {
			b.WriteString(p)
		} else {
			b.WriteString(strconv.Quote(p))
		}
	}
	return b.String()
}

func isBare(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
