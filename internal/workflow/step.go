package workflow

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/sandbox"
)

// keyLine reads a step's "Key: value" line. It is read by hand, not by a
// regexp: the line after the keys is the prompt, often a long one.
func keyLine(line string) (key, val string, ok bool) {
	s := strings.TrimSpace(line)
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return "", "", false
	}
	i := 1
	for i < len(s) && ('a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) || s[i] != ':' {
		return "", "", false
	}
	return s[:i], strings.TrimSpace(s[i+1:]), true
}

// baseRe is a Base: line's value, the step it names.
var baseRe = regexp.MustCompile(`^steps\.([0-9]+)$`)

// stepKeys are the lines a step heading may be followed by.
var stepKeys = []string{"Tool", "Tier", "Model", "OnFail", "Condition", "Timeout", "Worktree", "Isolate", "Base"}

// step reads a step's key lines and body, up to the next ## line outside
// a fenced block.
func (f *fileParser) step(num, title string, pos Pos) (*Step, error) {
	n, err := strconv.Atoi(num)
	switch {
	case err != nil:
		return nil, errorf(pos, "step number %s is too large", num)
	case n < 1:
		return nil, errorf(pos, "step number %d: want 1 or more", n)
	}
	if prev, dup := f.ps.steps[n]; dup {
		return nil, errorf(pos, "step %d is already defined at %s", n, prev)
	}
	f.ps.steps[n] = pos
	s := &Step{Num: n, Title: strings.TrimSpace(title), Pos: pos, OnFail: OnFail{Action: OnFailAbort}}
	keys := map[string]string{}
	for ; f.i < len(f.lines) && strings.TrimSpace(f.lines[f.i]) == ""; f.i++ {
	}
	for ; f.i < len(f.lines); f.i++ {
		k, v, ok := keyLine(f.lines[f.i])
		if !ok {
			break
		}
		if !contains(stepKeys, k) {
			return nil, errorf(f.pos(), "unknown step key %q (known: %s)", k, strings.Join(stepKeys, ", "))
		}
		if _, dup := keys[k]; dup {
			return nil, errorf(f.pos(), "%s given twice", k)
		}
		keys[k] = v
		if err := s.setKey(k, v); err != nil {
			return nil, errorf(f.pos(), "%s: %v", k, err)
		}
	}
	var body []string
	bodyPos := f.pos()
	fenced := false
	for ; f.i < len(f.lines); f.i++ {
		l := f.lines[f.i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(l, "## ") {
			break
		}
		body = append(body, l)
	}
	if fenced {
		return nil, errorf(bodyPos, "step %d: a ``` block is never closed", n)
	}
	if err := s.setBody(strings.Trim(strings.Join(body, "\n"), "\n \t"), bodyPos); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Step) setKey(k, v string) error {
	if v == "" {
		return fmt.Errorf("no value")
	}
	switch k {
	case "Tool":
		if v == string(KindReview) || v == string(KindDebate) {
			s.Kind = Kind(v)
			return nil
		}
		s.Tool = v
		return checkTool(v)
	case "Tier":
		s.Tier = v
	case "Model":
		s.Model = v
	case "Timeout":
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q: want a positive duration such as 90s or 10m", v)
		}
		s.Timeout = v
	case "Worktree":
		if v != "true" && v != "false" {
			return fmt.Errorf("%q: want true or false", v)
		}
		on := v == "true"
		s.Worktree = &on
	case "Isolate":
		if _, err := sandbox.ParseIsolate(v); err != nil {
			return err
		}
		s.Isolate = v
	case "Base":
		m := baseRe.FindStringSubmatch(v)
		n, err := 0, error(nil)
		if m != nil {
			n, err = strconv.Atoi(m[1])
		}
		if m == nil || err != nil || n < 1 {
			return fmt.Errorf("%q: want steps.N, an earlier agent step whose branch this step's worktree starts from", v)
		}
		s.Base = n
	case "Condition":
		if _, err := ParseExpr(v); err != nil {
			return err
		}
		s.Condition = v
	case "OnFail":
		return s.setOnFail(v)
	}
	return nil
}

func (s *Step) setOnFail(v string) error {
	w := strings.Fields(v)
	switch {
	case len(w) == 1 && (w[0] == OnFailAbort || w[0] == OnFailSkip):
		s.OnFail = OnFail{Action: w[0]}
	case len(w) == 2 && w[0] == OnFailRetry:
		n, err := strconv.Atoi(w[1])
		if err != nil || n < 1 || n > 10 {
			return fmt.Errorf("retry %q: want 1 to 10 extra attempts", w[1])
		}
		s.OnFail = OnFail{Action: OnFailRetry, N: n}
	case len(w) == 2 && w[0] == OnFailDelegate:
		if err := checkTool(w[1]); err != nil {
			return err
		}
		s.OnFail = OnFail{Action: OnFailDelegate, Tool: w[1]}
	default:
		return fmt.Errorf("%q: want abort, skip, retry N or delegate TOOL", v)
	}
	return nil
}

// setBody decides the step's kind from its keys and body.
func (s *Step) setBody(body string, pos Pos) error {
	shell := strings.HasPrefix(body, "```sh\n") || strings.Contains(body, "\n```sh\n")
	switch {
	case s.Kind == KindReview || s.Kind == KindDebate:
		if s.Tier != "" || s.Model != "" {
			return errorf(s.Pos, "step %d: a %s picks its own models: no Tier or Model", s.Num, s.Kind)
		}
		if shell || strings.Contains(body, "\n") {
			return errorf(pos, "step %d: a %s step's body is one line (%s)", s.Num, s.Kind, map[Kind]string{KindReview: "csa review's arguments", KindDebate: "the question"}[s.Kind])
		}
		if s.Kind == KindDebate && body == "" {
			return errorf(s.Pos, "step %d: a debate step needs its question as its body", s.Num)
		}
	case shell:
		if !strings.HasPrefix(body, "```sh\n") || !strings.HasSuffix(body, "\n```") || strings.Count(body, "```") != 2 {
			return errorf(pos, "step %d: a shell step's body is one ```sh block and nothing else", s.Num)
		}
		if s.Tool != "" || s.Tier != "" || s.Model != "" || s.OnFail.Action == OnFailDelegate {
			return errorf(s.Pos, "step %d: a shell step has no Tool, Tier, Model or OnFail delegate", s.Num)
		}
		s.Kind = KindShell
		body = strings.TrimSuffix(strings.TrimPrefix(body, "```sh\n"), "```")
	default:
		s.Kind = KindAgent
		if s.Tier != "" && s.Model != "" && s.Tool == "" {
			// csa run --tier picks the model; one given too would be ignored.
			return errorf(s.Pos, "step %d: a Tier picks its own model: give Tool and Model, or Tier alone", s.Num)
		}
		if body == "" {
			return errorf(s.Pos, "step %d: no prompt (the text under the heading), nor a ```sh block", s.Num)
		}
	}
	if s.Worktree != nil && s.Kind != KindAgent {
		return errorf(s.Pos, "step %d: Worktree is for agent steps", s.Num)
	}
	if s.Isolate != "" && s.Kind != KindAgent {
		return errorf(s.Pos, "step %d: Isolate is for agent steps", s.Num)
	}
	if s.Base != 0 && s.Kind != KindAgent {
		return errorf(s.Pos, "step %d: Base is for agent steps", s.Num)
	}
	if s.Base != 0 && s.Worktree != nil && !*s.Worktree {
		return errorf(s.Pos, "step %d: Base starts the step's worktree from another step's branch: no Worktree: false", s.Num)
	}
	if s.OnFail.Action == OnFailDelegate && s.Kind != KindAgent {
		return errorf(s.Pos, "step %d: OnFail delegate is for agent steps", s.Num)
	}
	s.Body = body
	return nil
}

func checkTool(v string) error {
	if v == "auto" {
		return nil
	}
	_, err := agents.Parse(v)
	return err
}
