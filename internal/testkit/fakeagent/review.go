package fakeagent

import (
	"os"
	"strings"
)

// Scripted answers, for prompts csa writes itself (csa review, csa debate),
// which a test cannot fill with directives. CSA_FAKE_ANSWERS names a file
// of rules, one a line ('#' starts a comment):
//
//	TOOL | TEXT => SCRIPT
//
// TOOL is a tool name or *, TEXT a substring the prompt must hold (empty:
// any prompt), SCRIPT directives as in a prompt. A prompt that is not a
// directive script is answered by the SCRIPT of the first rule that
// matches; with none, as before (its size).
const answersEnv = "CSA_FAKE_ANSWERS"

// scripted returns the directives that answer prompt: steps itself when
// the prompt is a script already or no rule matches.
func scripted(tool, prompt string, steps []string) []string {
	if len(steps) > 0 && known(firstWord(steps[0])) {
		return steps
	}
	path := os.Getenv(answersEnv)
	if path == "" {
		return steps
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return steps
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, script, ok := strings.Cut(line, "=>")
		who, text, ok2 := strings.Cut(head, "|")
		if !ok || !ok2 {
			continue
		}
		who, text = strings.TrimSpace(who), strings.TrimSpace(text)
		if (who == "*" || who == tool) && strings.Contains(prompt, text) {
			return split(script)
		}
	}
	return steps
}
