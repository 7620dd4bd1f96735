package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/prompt"
	"github.com/csa-dev/csa/internal/csaagent/skills"
	"github.com/csa-dev/csa/internal/proc"
)

// builtin is a slash command of csa-agent's own. Built-ins win over skills
// and commands of the same name, as in Claude Code.
type builtin struct {
	name, args, desc string
	lineOnly         bool // only in the line-mode session
}

var builtins = []builtin{
	{"help", "", "list the commands and skills", false},
	{"compact", "[instructions]", "summarise older turns now", false},
	{"clear", "", "start a new, empty conversation (a new session id)", true},
	{"review", "[csa review flags]", "run csa review on the repository and show its verdict", false},
	{"exit", "", "leave (also /quit)", true},
}

func findBuiltin(name string) (builtin, bool) {
	if name == "quit" {
		name = "exit"
	}
	for _, b := range builtins {
		if b.name == name {
			return b, true
		}
	}
	return builtin{}, false
}

// slash runs "/name args" given as a prompt. A built-in runs here: done,
// with its exit code. A skill or command returns the prompt it sends (its
// shell lines run and replaced by their output) and the rules it allows
// for that turn, which runs on its model; a shell line refused or failing
// stops it there: done, failed.
func (s *session) slash(ctx context.Context, name, args string, line bool) (send string, allow []perm.Rule, code int, done bool) {
	if b, ok := findBuiltin(name); ok {
		switch {
		case b.lineOnly && !line:
			fmt.Fprintf(s.io.Stderr, "csa-agent: /%s is a command of the line-mode session, not of -p\n", name)
			return "", nil, exitUsage, true
		case b.lineOnly: // the REPL runs them itself, when given alone
			fmt.Fprintf(s.io.Stderr, "csa-agent: /%s takes no arguments\n", name)
			return "", nil, exitUsage, true
		case b.name == "help":
			s.help(s.out())
			return "", nil, exitOK, true
		case b.name == "compact":
			if !s.compactNow(ctx, args) {
				return "", nil, exitFailed, true
			}
			return "", nil, exitOK, true
		case b.name == "review":
			return "", nil, s.review(ctx, args), true
		}
	}
	sk, ok := s.skills.Lookup(name)
	switch {
	case !ok:
		fmt.Fprintf(s.io.Stderr, "csa-agent: unknown command /%s (/help lists them)\n", name)
		return "", nil, exitUsage, true
	case !sk.UserInvocable:
		fmt.Fprintf(s.io.Stderr, "csa-agent: /%s is not user-invocable (%s says user-invocable: false)\n", name, sk.Path)
		return "", nil, exitUsage, true
	}
	send, err := sk.Prompt(args, s.id)
	if err == nil {
		send, err = skills.RunShell(ctx, send, commandShell{s, sk.AllowedTools})
	}
	if err != nil { // refused or failed: nothing reaches the model, as in Claude Code
		fmt.Fprintf(s.io.Stderr, "csa-agent: /%s: %v\n", name, err)
		return "", nil, exitFailed, true
	}
	s.useSkillModel(sk)
	return send, sk.AllowedTools, 0, false
}

// out is where a command's output goes: stdout, unless stdout carries
// JSON.
func (s *session) out() io.Writer {
	if s.o.outputFormat == "text" {
		return s.io.Stdout
	}
	return s.io.Stderr
}

// help lists the built-ins, then the skills and commands a user may run.
func (s *session) help(w io.Writer) {
	fmt.Fprintln(w, "Commands:")
	for _, b := range builtins {
		fmt.Fprintf(w, "  %-28s %s\n", strings.TrimSpace("/"+b.name+" "+b.args), b.desc)
	}
	var lines []string
	for _, sk := range s.skills.All() {
		if _, shadowed := findBuiltin(sk.Name); shadowed || !sk.UserInvocable {
			continue
		}
		lines = append(lines, fmt.Sprintf("  %-28s %s (%s %s)", strings.TrimSpace("/"+sk.Name+" "+sk.ArgumentHint), sk.Description, sk.Source, sk.Kind))
	}
	if len(lines) > 0 {
		fmt.Fprintln(w, "Skills and custom commands:")
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
}

// reviewGrace is how long csa review has to end its reviewers when the
// user interrupts it.
const reviewGrace = 10 * time.Second

// review runs `csa review ARGS` in the repository (the project root) and
// shows its output; its exit code is csa review's.
func (s *session) review(ctx context.Context, args string) int {
	csa, err := proc.Sibling("csa")
	if err != nil {
		fmt.Fprintln(s.io.Stderr, "csa-agent: /review:", err)
		return exitFailed
	}
	ps, err := proc.Run(ctx, proc.Spec{Path: csa, Args: append([]string{"review"}, skills.Words(args)...),
		Dir: prompt.ProjectRoot(s.io.Cwd), Stdout: s.out(), Stderr: s.io.Stderr}, reviewGrace)
	if ps == nil {
		fmt.Fprintln(s.io.Stderr, "csa-agent: /review:", err)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintln(s.io.Stderr, "csa-agent: /review interrupted")
		return 130
	}
	return ps.ExitCode()
}
