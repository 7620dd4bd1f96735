// Package todo keeps plans: markdown task lists whose dependencies form a
// DAG, stored per project in a git repository of their own, and run task
// by task as csa sub-agents.
package todo

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/taskgraph"
)

// Status is where a plan stands.
type Status string

// The plan statuses, in the order a plan normally goes through them.
const (
	Draft        Status = "draft"
	Approved     Status = "approved"
	Implementing Status = "implementing"
	Done         Status = "done"
)

// Statuses lists every status.
var Statuses = []Status{Draft, Approved, Implementing, Done}

// transitions are the status changes allowed: a plan is approved before it
// is implemented, can go back to draft until then, can be paused
// (implementing -> approved) and reopened (done -> implementing).
var transitions = map[Status][]Status{
	Draft:        {Approved},
	Approved:     {Draft, Implementing},
	Implementing: {Approved, Done},
	Done:         {Implementing},
}

// CanBecome reports whether a plan in s may be set to next.
func (s Status) CanBecome(next Status) bool {
	for _, t := range transitions[s] {
		if t == next {
			return true
		}
	}
	return false
}

// Next lists the statuses s may become.
func (s Status) Next() []Status { return transitions[s] }

// ParseStatus reads a status name.
func ParseStatus(s string) (Status, error) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown plan status %q: want draft, approved, implementing or done", s)
}

// Plan is a title, a status, free text, and tasks in the order written.
type Plan struct {
	Title       string
	Status      Status
	Description string // the lines between the status and the first task
	Tasks       []*Task
	// File names the markdown in error messages.
	File string
}

// Task is one checkbox of the plan.
type Task struct {
	ID    string
	Title string
	Done  bool
	After []string // ids of the tasks that must be done first
	Tool  string   // the tool of its run ("" the default)
	Tier  string   // or a tier of [tiers]
	// Worktree, when written (worktree: true|false), says whether its run
	// works in a git worktree of its own; nil leaves it to csa todo run.
	Worktree *bool
	// Isolate, when written (isolate: fs,net), is what its run confines,
	// as csa run --isolate takes it; "" leaves it to csa todo run.
	Isolate string
	// Prompt is what its run is asked; "" means the title.
	Prompt string
	// Session is the csa session of its current run, recorded when the
	// run starts so that a `todo run` that died can wait for it.
	Session string
	Line    int // where it is written in the markdown
}

// Task returns the task id, or nil.
func (p *Plan) Task(id string) *Task {
	for _, t := range p.Tasks {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// PromptText is what the task's run is asked.
func (t *Task) PromptText() string {
	if t.Prompt != "" {
		return t.Prompt
	}
	return t.Title
}

// ParseError is a plan that cannot be read, at a line of its markdown.
type ParseError = taskgraph.FileError

var (
	taskRe  = regexp.MustCompile(`^- \[([ xX])\] ([^:\s]+):\s*(.*)$`)
	afterRe = regexp.MustCompile(`\s*\(after:\s*([^()]*)\)$`)
)

// taskLine matches a task's line, "- [ ] ID: TITLE"; nil for any other.
func taskLine(line string) []string {
	if !strings.HasPrefix(line, "- [") {
		return nil
	}
	return taskRe.FindStringSubmatch(line)
}

// attrLine reads an indented "key: value" line under a task. It is read by
// hand, not by a regexp: prompt lines are the long ones of a plan.
func attrLine(line string) (key, val string, ok bool) {
	rest := strings.TrimLeft(line, " \t")
	if len(rest) == len(line) {
		return "", "", false
	}
	i := strings.IndexFunc(rest, func(r rune) bool { return r < 'a' || r > 'z' })
	if i <= 0 || rest[i] != ':' {
		return "", "", false
	}
	return rest[:i], strings.TrimSpace(rest[i+1:]), true
}

// Parse reads a plan's markdown (file names it in errors) and checks its
// dependencies (see Check).
func Parse(file, text string) (*Plan, error) {
	p := &Plan{Status: Draft, File: file}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	errf := func(n int, format string, a ...any) error {
		return &ParseError{File: file, Line: n, Msg: fmt.Sprintf(format, a...)}
	}
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) || !strings.HasPrefix(lines[i], "# ") || strings.TrimSpace(lines[i][2:]) == "" {
		return nil, errf(i+1, "a plan begins with its title: \"# TITLE\"")
	}
	p.Title = strings.TrimSpace(lines[i][2:])
	var desc []string
	statusSeen := 0
	var cur *Task
	lineOf := map[string]int{} // each task's line, to refuse a second one
	for i++; i < len(lines); i++ {
		n, line := i+1, lines[i]
		if m := taskLine(line); m != nil {
			t, err := parseTask(m, n, errf)
			if err != nil {
				return nil, err
			}
			if prev, dup := lineOf[t.ID]; dup {
				return nil, errf(n, "task %s is already defined at line %d", t.ID, prev)
			}
			lineOf[t.ID] = n
			p.Tasks = append(p.Tasks, t)
			cur = t
			continue
		}
		if strings.HasPrefix(line, "- [") {
			return nil, errf(n, "a task is \"- [ ] ID: TITLE\" or \"- [x] ID: TITLE\", optionally ending \"(after: A, B)\"")
		}
		if cur == nil {
			if v, ok := strings.CutPrefix(line, "status:"); ok {
				if statusSeen != 0 {
					return nil, errf(n, "a second status line (the first is line %d)", statusSeen)
				}
				st, err := ParseStatus(strings.TrimSpace(v))
				if err != nil {
					return nil, errf(n, "%v", err)
				}
				p.Status, statusSeen = st, n
				continue
			}
			desc = append(desc, line)
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, val, ok := attrLine(line)
		if !ok {
			return nil, errf(n, "after the first task only tasks and their indented tool:, tier:, prompt: or session: lines may follow")
		}
		if err := setAttr(cur, key, val, n, errf); err != nil {
			return nil, err
		}
	}
	p.Description = strings.Trim(strings.Join(desc, "\n"), "\n")
	if err := Check(p); err != nil {
		return nil, err
	}
	return p, nil
}

type errfFunc func(n int, format string, a ...any) error

func parseTask(m []string, n int, errf errfFunc) (*Task, error) {
	t := &Task{ID: m[2], Done: m[1] != " ", Line: n}
	if !taskgraph.ValidID(t.ID) {
		return nil, errf(n, "task id %q: %s", t.ID, taskgraph.IDRule)
	}
	title := strings.TrimSpace(m[3])
	if a := afterRe.FindStringSubmatchIndex(title); a != nil {
		for _, d := range strings.Split(title[a[2]:a[3]], ",") {
			d = strings.TrimSpace(d)
			if d == "" {
				return nil, errf(n, "task %s: an empty name in (after: ...)", t.ID)
			}
			t.After = append(t.After, d)
		}
		title = strings.TrimSpace(title[:a[0]])
	}
	if title == "" {
		return nil, errf(n, "task %s has no title", t.ID)
	}
	t.Title = title
	return t, nil
}

func setAttr(t *Task, key, val string, n int, errf errfFunc) error {
	if val == "" {
		return errf(n, "task %s: %s: is empty", t.ID, key)
	}
	var field *string
	switch key {
	case "prompt":
		// Several prompt lines make a prompt of several lines.
		if t.Prompt != "" {
			t.Prompt += "\n"
		}
		t.Prompt += val
		return nil
	case "tool":
		field = &t.Tool
	case "tier":
		field = &t.Tier
	case "session":
		field = &t.Session
	case "worktree":
		return setWorktree(t, val, n, errf)
	case "isolate":
		if _, err := sandbox.ParseIsolate(val); err != nil {
			return errf(n, "task %s: isolate: %v", t.ID, err)
		}
		field = &t.Isolate
	default:
		return errf(n, "task %s: unknown line %q: want tool:, tier:, worktree:, isolate:, prompt: or session:", t.ID, key+":")
	}
	if *field != "" {
		return errf(n, "task %s: a second %s: line", t.ID, key)
	}
	*field = val
	return nil
}

func setWorktree(t *Task, val string, n int, errf errfFunc) error {
	switch {
	case t.Worktree != nil:
		return errf(n, "task %s: a second worktree: line", t.ID)
	case val != "true" && val != "false":
		return errf(n, "task %s: worktree: %q: want true or false", t.ID, val)
	}
	on := val == "true"
	t.Worktree = &on
	return nil
}

// Format writes the plan in its canonical markdown; Parse reads it back
// to the same plan.
func Format(p *Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nstatus: %s\n", p.Title, p.Status)
	if p.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", p.Description)
	}
	if len(p.Tasks) > 0 {
		b.WriteString("\n")
	}
	for _, t := range p.Tasks {
		box := " "
		if t.Done {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] %s: %s", box, t.ID, t.Title)
		if len(t.After) > 0 {
			fmt.Fprintf(&b, " (after: %s)", strings.Join(t.After, ", "))
		}
		b.WriteString("\n")
		for _, kv := range [][2]string{{"tool", t.Tool}, {"tier", t.Tier}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, "  %s: %s\n", kv[0], kv[1])
			}
		}
		if t.Worktree != nil {
			fmt.Fprintf(&b, "  worktree: %t\n", *t.Worktree)
		}
		if t.Isolate != "" {
			fmt.Fprintf(&b, "  isolate: %s\n", t.Isolate)
		}
		if t.Prompt != "" {
			for _, l := range strings.Split(t.Prompt, "\n") {
				fmt.Fprintf(&b, "  prompt: %s\n", l)
			}
		}
		if t.Session != "" {
			fmt.Fprintf(&b, "  session: %s\n", t.Session)
		}
	}
	return b.String()
}
