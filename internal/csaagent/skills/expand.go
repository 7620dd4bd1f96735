package skills

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
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

// Instructions is the skill's body: Body, or the body of the file Load
// found it in, read now: a session starts with the front matter alone.
func (sk Skill) Instructions() (string, error) {
	if !sk.onDisk {
		return sk.Body, nil
	}
	body, err := frontmatter.ReadBody(sk.Path)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", sk.Kind, sk.Path, err)
	}
	return strings.TrimSpace(body), nil
}

// Prompt is the user message "/name args" sends, as Claude Code builds
// it: a skill's starts with its folder, so the model can read the files
// it bundles; then the arguments are substituted (substituteArgs), then
// ${CLAUDE_SKILL_DIR}, ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_SESSION_ID}. The
// error is its file's, unreadable since the session started.
func (sk Skill) Prompt(args, sessionID string) (string, error) {
	body, err := sk.Instructions()
	if err != nil {
		return "", err
	}
	if sk.Kind == KindSkill {
		body = "Base directory for this skill: " + sk.Dir + "\n" + body
	}
	body = substituteArgs(body, args, sk.ArgNames)
	if sk.Kind == KindSkill {
		body = strings.ReplaceAll(body, "${CLAUDE_SKILL_DIR}", sk.Dir)
	}
	if sk.PluginRoot != "" {
		body = strings.ReplaceAll(body, "${CLAUDE_PLUGIN_ROOT}", sk.PluginRoot)
	}
	return strings.ReplaceAll(body, "${CLAUDE_SESSION_ID}", sessionID), nil
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
