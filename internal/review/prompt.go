package review

import (
	"fmt"
	"strings"
)

// ReviewPrompt is what every reviewer is asked. Its wording is a contract
// of sorts: the scripted model servers of the tests match on
// "CSA REVIEW REQUEST".
func ReviewPrompt(c *Change) string {
	var b strings.Builder
	b.WriteString(`CSA REVIEW REQUEST

You are a code reviewer, one of several independent reviewers from different model families. Review ` + c.What + `, shown below.

This review is READ-ONLY: do not modify, create or delete any file, and do not run commands that change anything. You may read files of the project for context.

Judge whether the change is correct, safe and ready to be merged. Report concrete problems only, each with the file and line it concerns.

End your answer with exactly one JSON block, fenced as below, holding your verdict:

` + "```json" + `
{"verdict": "pass", "findings": [{"file": "path/to/file.go", "line": 12, "severity": "high", "message": "what is wrong and why"}]}
` + "```" + `

- "verdict" is "pass" (ready as it is), "fail" (must be fixed first) or "uncertain" (you cannot tell).
- "severity" is "high", "medium" or "low"; "findings" may be empty ([]).
- The JSON block must be the last thing in your answer. An answer without it counts as no review at all.

`)
	fmt.Fprintf(&b, "<change bytes=%d>\n%s", c.Bytes, c.Text)
	if !strings.HasSuffix(c.Text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("</change>\n")
	return b.String()
}

// Debate prompts. Their first line names the round and the role: the
// scripted model servers of the tests match on it ("CSA DEBATE ROUND 2 OF
// 2: CRITIC").
func header(round, rounds int, role string) string {
	return fmt.Sprintf("CSA DEBATE ROUND %d OF %d: %s\n\n", round, rounds, strings.ToUpper(role))
}

const debateRules = `This is a discussion: do not modify, create or delete any file, and do not run commands that change anything. You may read files of the project for context.`

// ProposerPrompt opens the debate (round 1) or hands the proposer the
// critic's last answer (later rounds, in its resumed session).
func ProposerPrompt(round, rounds int, question, critique string) string {
	var b strings.Builder
	b.WriteString(header(round, rounds, "proposer"))
	if round == 1 {
		b.WriteString("You are the PROPOSER in a debate with a critic from another model family. Answer the question below as well as you can, with your reasoning. The critic will examine your answer, and you will get its critique in the next round.\n\n")
		b.WriteString(debateRules + "\n\n")
		fmt.Fprintf(&b, "<question>\n%s\n</question>\n", strings.TrimSpace(question))
		return b.String()
	}
	b.WriteString("The critic answered your last proposal:\n\n")
	fmt.Fprintf(&b, "<critique>\n%s\n</critique>\n\n", strings.TrimSpace(critique))
	b.WriteString("Revise your answer in the light of this critique, or defend it where the critic is wrong. Give your complete answer again, not only the changes.\n")
	return b.String()
}

// CriticPrompt asks the critic to judge the proposer's latest answer. In
// round 1 it also carries the question; later rounds continue the critic's
// own session.
func CriticPrompt(round, rounds int, question, proposal string) string {
	var b strings.Builder
	b.WriteString(header(round, rounds, "critic"))
	if round == 1 {
		b.WriteString("You are the CRITIC in a debate with a proposer from another model family. Examine the proposer's answer to the question below: find its errors, gaps and weak reasoning.\n\n")
		b.WriteString(debateRules + "\n\n")
		fmt.Fprintf(&b, "<question>\n%s\n</question>\n\n", strings.TrimSpace(question))
		b.WriteString("The proposer's answer:\n\n")
	} else {
		b.WriteString("The proposer revised its answer after your critique:\n\n")
	}
	fmt.Fprintf(&b, "<proposal>\n%s\n</proposal>\n\n", strings.TrimSpace(proposal))
	b.WriteString(`End your answer with exactly one JSON block, fenced as below, holding your verdict on the proposal as it now stands:

` + "```json" + `
{"verdict": "revise", "reasoning": "why, in a few sentences"}
` + "```" + `

- "verdict" is "agree" (the answer is right and complete as it stands), "revise" (it needs changes) or "reject" (it is fundamentally wrong).
- The JSON block must be the last thing in your answer.
`)
	return b.String()
}
