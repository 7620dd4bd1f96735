// Package workflow compiles PATTERN.md workflows into plans and runs them:
// steps in order, each a shell command, a sub-agent run, a review or a
// debate, recorded in an fsync'd journal so that a killed run resumes
// without repeating finished steps.
package workflow

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Pos is where something was written: file and 1-based line.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// Error is a mistake in a workflow file, located.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorf(p Pos, format string, a ...any) error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, a...)}
}

// Kind is what a step runs: the closed set of step kinds.
type Kind string

const (
	KindAgent  Kind = "agent"  // a csa run of the step's tool, tier or model on its prompt
	KindShell  Kind = "shell"  // the step's ```sh block, run by sh -c
	KindReview Kind = "review" // csa review with the step's arguments
	KindDebate Kind = "debate" // csa debate on the step's question
)

// OnFail actions: what a failed step leads to.
const (
	OnFailAbort    = "abort"
	OnFailSkip     = "skip"
	OnFailRetry    = "retry"
	OnFailDelegate = "delegate"
)

// OnFail is a step's failure policy.
type OnFail struct {
	Action string `json:"action"`
	N      int    `json:"n,omitempty"`    // retry: the most extra attempts
	Tool   string `json:"tool,omitempty"` // delegate: the tool of the second attempt
}

func (o OnFail) String() string {
	switch o.Action {
	case OnFailRetry:
		return fmt.Sprintf("retry %d", o.N)
	case OnFailDelegate:
		return "delegate " + o.Tool
	}
	return o.Action
}

// Step is one step of a plan, as written (variables not yet substituted).
type Step struct {
	Num     int    `json:"num"`
	Title   string `json:"title"`
	Kind    Kind   `json:"kind"`
	Tool    string `json:"tool,omitempty"`
	Tier    string `json:"tier,omitempty"`
	Model   string `json:"model,omitempty"`
	Timeout string `json:"timeout,omitempty"`
	// Worktree, when given, says whether the step's run works in a git
	// worktree of its own; nil leaves it to the front matter.
	Worktree *bool `json:"worktree,omitempty"`
	// Isolate, when given, is what the step's run confines (as csa run
	// --isolate takes it); "" leaves it to the run's.
	Isolate string `json:"isolate,omitempty"`
	// Base, when not 0, is the earlier step whose branch the step's
	// worktree starts from (Base: steps.N): its latest run's recorded
	// head, instead of the caller's tree.
	Base      int    `json:"base,omitempty"`
	OnFail    OnFail `json:"on_fail"`
	Condition string `json:"condition,omitempty"`
	// Body is the prompt (agent), the script (shell), the arguments
	// (review) or the question (debate).
	Body string `json:"body"`
	Pos  Pos    `json:"pos"`
}

// Node types: the closed set of what a plan holds.
const (
	NodeStep = "step"
	NodeIf   = "if"
	NodeFor  = "for"
)

// Node is a step, an IF with its branches, or a FOR with its body.
type Node struct {
	Type string `json:"type"`
	Pos  Pos    `json:"pos"`
	Step *Step  `json:"step,omitempty"`
	// IF
	Cond string `json:"cond,omitempty"`
	Then []Node `json:"then,omitempty"`
	Else []Node `json:"else,omitempty"`
	// FOR
	Var  string `json:"var,omitempty"`
	List string `json:"list,omitempty"`
	Max  int    `json:"max,omitempty"`
	Body []Node `json:"body,omitempty"`
}

// Plan is a compiled workflow: its front matter, the variables' values and
// the expanded tree of steps, includes resolved.
type Plan struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	File        string `json:"file"`
	Tool        string `json:"tool,omitempty"`
	Tier        string `json:"tier,omitempty"`
	Model       string `json:"model,omitempty"`
	Worktree    bool   `json:"worktree,omitempty"` // agent steps in worktrees of their own
	// Isolate is what agent steps that do not say confine: csa workflow
	// run --isolate, else the front matter's ("" csa run's defaults).
	Isolate string `json:"isolate,omitempty"`
	// MaxCostUSD is each agent step's run's budget: csa workflow run
	// --max-cost (0: none).
	MaxCostUSD float64           `json:"max_cost_usd,omitempty"`
	Vars       map[string]string `json:"vars"`
	Nodes      []Node            `json:"nodes"`
	Steps      int               `json:"steps"` // how many step headings
}

// Render writes the plan readably: each step with its kind, tool and
// policy, nested under the IFs and FORs that hold it.
func (p *Plan) Render(w io.Writer) {
	fmt.Fprintf(w, "workflow %s (%s): %d steps\n", p.Name, p.File, p.Steps)
	if p.Description != "" {
		fmt.Fprintf(w, "  %s\n", p.Description)
	}
	for _, kv := range [][2]string{{"tool", p.Tool}, {"tier", p.Tier}, {"model", p.Model}} {
		if kv[1] != "" {
			fmt.Fprintf(w, "  agent steps' default %s: %s\n", kv[0], kv[1])
		}
	}
	for _, k := range sortedKeys(p.Vars) {
		fmt.Fprintf(w, "  var %s = %q\n", k, p.Vars[k])
	}
	renderNodes(w, p.Nodes, 1)
}

func renderNodes(w io.Writer, nodes []Node, depth int) {
	ind := strings.Repeat("  ", depth)
	for _, n := range nodes {
		switch n.Type {
		case NodeStep:
			s := n.Step
			fmt.Fprintf(w, "%sstep %d '%s': %s", ind, s.Num, s.Title, s.Kind)
			for _, kv := range [][2]string{{"tool", s.Tool}, {"tier", s.Tier}, {"model", s.Model}, {"timeout", s.Timeout}} {
				if kv[1] != "" {
					fmt.Fprintf(w, " %s=%s", kv[0], kv[1])
				}
			}
			if s.Base != 0 {
				fmt.Fprintf(w, " base=steps.%d", s.Base)
			}
			fmt.Fprintf(w, " on_fail=%s", s.OnFail)
			if s.Condition != "" {
				fmt.Fprintf(w, " if (%s)", s.Condition)
			}
			fmt.Fprintf(w, "  [%s]\n", s.Pos)
		case NodeIf:
			fmt.Fprintf(w, "%sIF %s\n", ind, n.Cond)
			renderNodes(w, n.Then, depth+1)
			if len(n.Else) > 0 {
				fmt.Fprintf(w, "%sELSE\n", ind)
				renderNodes(w, n.Else, depth+1)
			}
			fmt.Fprintf(w, "%sENDIF\n", ind)
		case NodeFor:
			fmt.Fprintf(w, "%sFOR %s IN %s MAX %d\n", ind, n.Var, n.List, n.Max)
			renderNodes(w, n.Body, depth+1)
			fmt.Fprintf(w, "%sENDFOR\n", ind)
		}
	}
}

// scope is what a reference may name at a point of the plan.
type scope struct {
	vars  map[string]string
	loops map[string]bool // the FOR variables around
	depth int             // how many FORs are around
	steps map[int]int     // the steps before, with how many FORs hold each
	kinds map[int]Kind    // their kinds
}

// check makes sure every reference names a variable, a FOR variable in
// scope, or a field of a step that comes before.
func check(p *Plan) error {
	sc := &scope{vars: p.Vars, loops: map[string]bool{}, steps: map[int]int{}, kinds: map[int]Kind{}}
	return sc.nodes(p.Nodes)
}

func (sc *scope) nodes(nodes []Node) error {
	for _, n := range nodes {
		switch n.Type {
		case NodeStep:
			s := n.Step
			if err := sc.base(s); err != nil {
				return err
			}
			if sc.depth > 0 {
				// Inside a FOR a step may read its own previous iteration.
				sc.steps[s.Num] = sc.depth
			}
			if err := sc.refs(s.Pos, s.Body, nil); err != nil {
				return err
			}
			if s.Condition != "" {
				e, _ := ParseExpr(s.Condition)
				if err := sc.refs(s.Pos, "", e.Refs()); err != nil {
					return err
				}
			}
			sc.steps[s.Num], sc.kinds[s.Num] = sc.depth, s.Kind
		case NodeIf:
			e, _ := ParseExpr(n.Cond)
			if err := sc.refs(n.Pos, "", e.Refs()); err != nil {
				return err
			}
			if err := sc.nodes(n.Then); err != nil {
				return err
			}
			if err := sc.nodes(n.Else); err != nil {
				return err
			}
		case NodeFor:
			if err := sc.refs(n.Pos, n.List, nil); err != nil {
				return err
			}
			if _, ok := sc.vars[n.Var]; ok || sc.loops[n.Var] {
				return errorf(n.Pos, "FOR %s: the name is already a variable", n.Var)
			}
			sc.loops[n.Var], sc.depth = true, sc.depth+1
			err := sc.nodes(n.Body)
			sc.loops[n.Var], sc.depth = false, sc.depth-1
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// base makes sure a step's Base names an agent step before it, which
// has ended (and recorded its branch) by the time this step starts.
func (sc *scope) base(s *Step) error {
	if s.Base == 0 {
		return nil
	}
	if _, ok := sc.steps[s.Base]; !ok || s.Base == s.Num {
		return errorf(s.Pos, "step %d: Base: step %d does not come before this point", s.Num, s.Base)
	}
	if sc.kinds[s.Base] != KindAgent {
		return errorf(s.Pos, "step %d: Base: step %d is a %s step, with no branch (want an agent step)", s.Num, s.Base, sc.kinds[s.Base])
	}
	return nil
}

func (sc *scope) refs(pos Pos, text string, refs []Ref) error {
	if text != "" {
		var err error
		if refs, err = refsOf(text); err != nil {
			return errorf(pos, "%v", err)
		}
	}
	for _, r := range refs {
		if r.Name != "" {
			if _, ok := sc.vars[r.Name]; !ok && !sc.loops[r.Name] {
				return errorf(pos, "${%s}: no such variable (declare it under [variables] in the front matter)", r)
			}
			continue
		}
		depth, ok := sc.steps[r.Step]
		if !ok {
			return errorf(pos, "${%s}: step %d does not come before this point", r, r.Step)
		}
		if len(r.Index) > depth {
			return errorf(pos, "${%s}: step %d is inside %d FOR loops, not %d", r, r.Step, depth, len(r.Index))
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
