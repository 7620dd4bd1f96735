package workspace

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// subjectRunes bounds a commit's subject line.
const subjectRunes = 72

// ChangeMessage is the message of the commit recording a run's change:
// the prompt's first line as the subject, the session named in the body,
// and the CSA-Session and CSA-Tool trailers.
func ChangeMessage(prompt, id, tool string) []byte {
	return []byte(fmt.Sprintf("%s\n\nThe change csa session %s made.\n\nCSA-Session: %s\nCSA-Tool: %s\n",
		Subject(prompt), id, oneLine(id), oneLine(tool)))
}

// snapshotMessage is the message of the commit holding the caller's
// uncommitted changes a run starts from.
func snapshotMessage(id, tool string) []byte {
	return []byte(fmt.Sprintf("csa: the caller's uncommitted changes\n\nThe working tree csa session %s started from.\n\nCSA-Session: %s\nCSA-Tool: %s\n",
		id, oneLine(id), oneLine(tool)))
}

// Subject is the prompt's first line that is not blank, made a valid
// subject whatever its bytes: UTF-8 (U+FFFD for what is not), no control
// characters (git's message ends at a NUL), at most subjectRunes runes.
func Subject(prompt string) string {
	first := ""
	for _, l := range strings.Split(prompt, "\n") {
		if l = oneLine(l); l != "" {
			first = l
			break
		}
	}
	if first == "" {
		return "csa run"
	}
	if utf8.RuneCountInString(first) > subjectRunes {
		first = strings.TrimSpace(string([]rune(first)[:subjectRunes-1])) + "…"
	}
	return first
}

// oneLine is s as valid UTF-8 with every control character a space,
// trimmed.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}
