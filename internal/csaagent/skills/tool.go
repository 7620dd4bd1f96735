package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Tool is Claude Code's Skill tool: the model loads a skill's instructions
// by name. Its description lists the skills it offers, so it is built with
// them (NewTool); the registry has it with none, and a session offers it
// only when there are some.
type Tool struct {
	offered   []Skill
	sessionID string
	loaded    func(Skill)
	shell     func(Skill) Shell
}

// WithShell has the skills' shell lines run through shell(sk) when loaded
// (RunShell), as Claude Code runs them; without it they stay as written.
func (t *Tool) WithShell(shell func(Skill) Shell) *Tool {
	t.shell = shell
	return t
}

// NewTool is the Skill tool offering list (ModelInvocable skills) to the
// session sessionID; loaded, when set, is given each skill loaded (the
// session allows its allowed-tools and uses its model for the rest of the
// turn).
func NewTool(list []Skill, sessionID string, loaded func(Skill)) *Tool {
	return &Tool{offered: append([]Skill(nil), list...), sessionID: sessionID, loaded: loaded}
}

func (*Tool) Name() string { return "Skill" }

func (t *Tool) Description() string {
	var b strings.Builder
	b.WriteString(`Load a skill: instructions for a task, written by the user, the project or a plugin. Call it with the skill's name (and optional arguments) when a task matches a skill's description, before doing the task; the result holds the skill's instructions and the folder its bundled files are in. Follow them.

Only use the skills listed here; a skill already loaded in this conversation need not be loaded again.

Available skills:
`)
	if len(t.offered) == 0 {
		b.WriteString("(none)\n")
	}
	for _, sk := range t.offered {
		fmt.Fprintf(&b, "- %s: %s\n", sk.Name, sk.Description)
	}
	return b.String()
}

// skillInput is a Skill call's input; its schema is derived from it.
type skillInput struct {
	Skill string `json:"skill" jsonschema:"The skill's name, as listed"`
	Args  string `json:"args,omitempty" jsonschema:"Optional arguments for the skill"`
}

func (*Tool) Schema() json.RawMessage { return tool.SchemaOf[skillInput]() }

// ConcurrencySafe and ReadOnly: loading instructions changes nothing.
func (*Tool) ConcurrencySafe(json.RawMessage) bool { return true }
func (*Tool) ReadOnly(json.RawMessage) bool        { return true }

// Subject is the skill's name, so rules such as Skill(deploy) match it.
func (*Tool) Subject(input json.RawMessage) string {
	var in skillInput
	_ = json.Unmarshal(input, &in)
	return in.Skill
}

func (t *Tool) Run(ctx context.Context, _ *tool.Env, input json.RawMessage) (tool.Result, error) {
	var in skillInput
	if err := tool.Decode(input, &in); err != nil {
		return tool.Errorf("invalid input: %v", err), nil
	}
	name := strings.TrimPrefix(strings.TrimSpace(in.Skill), "/")
	for _, sk := range t.offered {
		if sk.Name == name {
			text, err := sk.Prompt(in.Args, t.sessionID)
			if err != nil {
				return tool.Errorf("%v", err), nil
			}
			if t.shell != nil {
				if text, err = RunShell(ctx, text, t.shell(sk)); err != nil {
					return tool.Errorf("%v", err), nil
				}
			}
			if t.loaded != nil {
				t.loaded(sk)
			}
			return tool.Result{Output: text}, nil
		}
	}
	names := make([]string, len(t.offered))
	for i, sk := range t.offered {
		names[i] = sk.Name
	}
	return tool.Errorf("unknown skill %q: the skills are %s", in.Skill, strings.Join(names, ", ")), nil
}
