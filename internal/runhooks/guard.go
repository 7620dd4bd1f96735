package runhooks

import (
	"context"
	"fmt"
	"strings"
)

// Prelude runs what precedes a run's prompt: the pre_session hooks when
// the session is new, then the prompt guards, in order. It returns the
// prompt with their output added after it, each block under a header
// naming its command (a guard's header even when it printed nothing: a
// clean `git status` says something; a pre_session hook's only when it
// printed something or failed), and their results. A failing guard adds what it
// wrote and why it failed; it never stops the run. A failing pre_session
// hook is the caller's refusal (Refusal of the results).
func (s *Set) Prelude(ctx context.Context, prompt string, newSession bool, v Vars, e Env) (string, []Result) {
	if s == nil {
		return prompt, nil
	}
	var blocks []string
	var results []Result
	if newSession {
		for _, r := range s.Fire(ctx, PreSession, v, e) {
			// A hook that only acts (and succeeds) adds nothing.
			if r.OK() && strings.TrimSpace(r.Output) == "" {
				results = append(results, r)
				continue
			}
			text := block("pre_session hook", r)
			r.AddedBytes = len(text)
			blocks, results = append(blocks, text), append(results, r)
		}
	}
	for _, g := range s.Guards {
		cmd := Expand(g.Command, "", v)
		o := runCommand(ctx, cmd, v.env(e.Base, ""), e.Dir, g.Timeout, g.MaxBytes)
		r := result("", cmd, g.Timeout, o)
		text := block("prompt guard", r)
		r.AddedBytes = len(text)
		blocks, results = append(blocks, text), append(results, r)
	}
	if len(blocks) == 0 {
		return prompt, results
	}
	return strings.TrimRight(prompt, "\n") + "\n\n" + strings.Join(blocks, "\n"), results
}

// block is what one command adds to the prompt: a header naming it, its
// output, a marker where it was cut, and why it failed when it did.
func block(what string, r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- csa %s: %s ---\n", what, r.Command)
	if r.Output != "" {
		b.WriteString(strings.TrimRight(r.Output, "\n"))
		b.WriteByte('\n')
	}
	if r.Truncated {
		fmt.Fprintf(&b, "[csa: output cut at %d bytes]\n", len(r.Output))
	}
	if !r.OK() {
		fmt.Fprintf(&b, "[csa: %s]\n", r.why())
	}
	return b.String()
}
