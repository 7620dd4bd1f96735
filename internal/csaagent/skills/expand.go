package skills

import (
	"regexp"
	"strconv"
	"strings"
)

// commandWord is what may follow the slash of a command: a name, so that a
// prompt starting with a path ("/tmp/x.log: why?") is no command.
var commandWord = regexp.MustCompile(`^/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(\s|$)`)

// Invocation splits "/name args" into the name and the arguments; ok is
// false when line is not a slash command.
func Invocation(line string) (name, args string, ok bool) {
	line = strings.TrimSpace(line)
	m := commandWord.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	return m[1], strings.TrimSpace(line[len(m[1])+1:]), true
}

// placeholder matches what Prompt substitutes.
var placeholder = regexp.MustCompile(`\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$([1-9])|\$\{(CLAUDE_SESSION_ID|CLAUDE_SKILL_DIR|CLAUDE_PLUGIN_ROOT)\}`)

// Prompt is the user message "/name args" sends: the body with $ARGUMENTS
// (all of args), $ARGUMENTS[N] (the Nth word, from 0), $1..$9 (the Nth
// word, from 1, as a shell's), ${CLAUDE_SESSION_ID}, ${CLAUDE_SKILL_DIR}
// and ${CLAUDE_PLUGIN_ROOT} substituted. Arguments given to a body that
// uses none of them are appended as "ARGUMENTS: args", as Claude Code
// does. A skill's prompt starts with its folder, so the model can read the
// files it bundles.
func (sk Skill) Prompt(args, sessionID string) string {
	words := Words(args)
	word := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	used := false
	body := placeholder.ReplaceAllStringFunc(sk.Body, func(m string) string {
		g := placeholder.FindStringSubmatch(m)
		switch {
		case g[1] != "":
			n, _ := strconv.Atoi(g[1])
			used = true
			return word(n)
		case m == "$ARGUMENTS":
			used = true
			return args
		case g[2] != "":
			used = true
			return word(int(g[2][0] - '1'))
		case g[3] == "CLAUDE_SESSION_ID":
			return sessionID
		case g[3] == "CLAUDE_SKILL_DIR":
			return sk.Dir
		}
		return sk.PluginRoot
	})
	if !used && args != "" {
		body += "\n\nARGUMENTS: " + args
	}
	if sk.Kind == KindSkill {
		body = "Base directory for this skill: " + sk.Dir + "\n\n" + body
	}
	return body
}

// Words splits arguments at spaces; single or double quotes keep spaces
// in a word ("fix 'the login bug'" is two words).
func Words(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
