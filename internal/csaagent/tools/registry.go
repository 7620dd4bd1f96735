package tools

import (
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/skills"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// All returns every built-in tool, in a stable order (the order the model
// sees them). Task lists no subagent types and Skill no skills; replace
// them with With(All(), NewTask(types)) and With(..., skills.NewTool(...))
// once they are known (a session without skills drops Skill).
func All() []tool.Tool {
	return []tool.Tool{
		NewTask(nil),
		NewBash(),
		NewGlob(),
		NewGrep(),
		NewLS(),
		NewExitPlanMode(),
		NewRead(),
		NewEdit(),
		NewMultiEdit(),
		NewWrite(),
		NewWebFetch(),
		NewTodoWrite(),
		NewBashOutput(),
		NewKillShell(),
		NewEnterPlanMode(),
		skills.NewTool(nil, "", nil),
	}
}

// ByName finds a built-in tool.
func ByName(name string) (tool.Tool, bool) {
	for _, t := range All() {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// With returns all with t in place of the tool of the same name (appended
// when there is none).
func With(all []tool.Tool, t tool.Tool) []tool.Tool {
	out := make([]tool.Tool, 0, len(all)+1)
	replaced := false
	for _, x := range all {
		if x.Name() == t.Name() {
			x, replaced = t, true
		}
		out = append(out, x)
	}
	if !replaced {
		out = append(out, t)
	}
	return out
}

// Filter keeps the tools of all that allowNames names, in all's order, for
// a subagent's tool list. An empty list or "*" keeps every tool (a
// subagent without a tools list inherits them all); a permission-rule form
// such as "Bash(git:*)" names its tool. Unknown names are ignored.
func Filter(all []tool.Tool, allowNames []string) []tool.Tool {
	want := map[string]bool{}
	for _, n := range allowNames {
		n = strings.TrimSpace(n)
		if i := strings.IndexByte(n, '('); i > 0 {
			n = n[:i]
		}
		if n == "*" {
			return append([]tool.Tool(nil), all...)
		}
		want[n] = true
	}
	if len(allowNames) == 0 {
		return append([]tool.Tool(nil), all...)
	}
	var out []tool.Tool
	for _, t := range all {
		if want[t.Name()] {
			out = append(out, t)
		}
	}
	return out
}
