package skills

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Claude Code's shell lines in a command's or skill's body: a fenced
// block opened with "```!", and "!`command`" at the start of a line or
// after a space (found in the text with other `code` spans blanked, so
// "!" inside them starts nothing).
var (
	shellBlock  = regexp.MustCompile("(?s)```!\\s*\\n?(.*?)\\n?```")
	shellInline = regexp.MustCompile("(?m)(?:^|\\s)(!`([^`]+)`)")
	codeSpan    = regexp.MustCompile("`[^`\\n]+`")
)

// Shell runs a body's shell lines for Expand: Allowed is the session's
// permission check of the Bash call (with the command's allowed-tools
// granted), Run runs it in the working directory.
type Shell interface {
	Allowed(command string) (ok bool, reason string)
	Run(ctx context.Context, command string) (stdout, stderr string, code int, err error)
}

// ShellError is a shell line that was refused or failed: the command
// stops there and nothing reaches the model, as in Claude Code. Its
// message is Claude Code's.
type ShellError struct{ msg string }

func (e *ShellError) Error() string { return e.msg }

// RunShell replaces each shell line of text by its output (shellOutput),
// in Claude Code's order: fenced
// blocks, then inline ones. A line the permissions do not allow, or one
// that exits non-zero, stops with a *ShellError.
func RunShell(ctx context.Context, text string, sh Shell) (string, error) {
	type line struct{ pattern, command string }
	var lines []line
	for _, m := range shellBlock.FindAllStringSubmatch(text, -1) {
		lines = append(lines, line{m[0], m[1]})
	}
	if strings.Contains(text, "!`") {
		masked := maskCode(text)
		for _, m := range shellInline.FindAllStringSubmatchIndex(masked, -1) {
			lines = append(lines, line{text[m[2]:m[3]], text[m[4]:m[5]]})
		}
	}
	out := text
	for _, l := range lines {
		command := strings.TrimSpace(l.command)
		if command == "" {
			continue
		}
		if ok, reason := sh.Allowed(command); !ok {
			if reason == "" {
				reason = "Permission denied"
			}
			return "", &ShellError{fmt.Sprintf("Shell command permission check failed for pattern %q: %s", l.pattern, reason)}
		}
		stdout, stderr, code, err := sh.Run(ctx, command)
		if err != nil {
			return "", &ShellError{fmt.Sprintf("[Error]\n%v", err)}
		}
		if code != 0 {
			return "", &ShellError{fmt.Sprintf("Shell command failed for pattern %q: %s", l.pattern, failureOutput(stdout, stderr))}
		}
		out = strings.Replace(out, l.pattern, shellOutput(stdout, stderr), 1)
	}
	return out, nil
}

// shellOutput is a shell line's replacement, as Claude Code forms it (its
// Bash tool's result): stdout without its leading blank lines and
// trailing space, then stderr trimmed, on the next line; for none, a note.
func shellOutput(stdout, stderr string) string {
	var parts []string
	if s := strings.TrimRightFunc(leadingBlankLines.ReplaceAllString(stdout, ""), unicode.IsSpace); s != "" {
		parts = append(parts, s)
	}
	if s := strings.TrimSpace(stderr); s != "" {
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "(Bash completed with no output)"
	}
	return strings.Join(parts, "\n")
}

// failureOutput is a failed line's output in Claude Code's message:
// stdout, then "[stderr]" and stderr, each trimmed.
func failureOutput(stdout, stderr string) string {
	var parts []string
	if s := strings.TrimSpace(stdout); s != "" {
		parts = append(parts, s)
	}
	if s := strings.TrimSpace(stderr); s != "" {
		parts = append(parts, "[stderr]\n"+s)
	}
	return strings.Join(parts, "\n")
}

var leadingBlankLines = regexp.MustCompile(`^(?:[ \t\r\f\v]*\n)+`)

// maskCode blanks `code` spans not opened right after "!" or "`", keeping
// every offset, so only real shell lines are found.
func maskCode(text string) string {
	b := []byte(text)
	for _, m := range codeSpan.FindAllStringIndex(text, -1) {
		if m[0] > 0 && (text[m[0]-1] == '!' || text[m[0]-1] == '`') {
			continue
		}
		for i := m[0] + 1; i < m[1]-1; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// quoteArgs keeps a command's arguments from starting shell lines, as
// Claude Code does: "!" after "`" or before one, or at a word's start,
// is spaced or escaped.
func quoteArgs(s string) string {
	s = strings.ReplaceAll(s, "`!", "` !")
	s = strings.ReplaceAll(s, "!`", "! `")
	return bangAtStart.ReplaceAllString(s, "$1\\!")
}

var bangAtStart = regexp.MustCompile(`(?m)(^|\s)!`)
