// Package shellquote quotes words for sh.
package shellquote

import "strings"

// Quote makes s one sh word whatever it holds.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// IfNeeded quotes s only when it holds anything but plain path characters.
func IfNeeded(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
		return s
	}
	return Quote(s)
}
