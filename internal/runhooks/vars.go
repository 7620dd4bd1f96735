package runhooks

import (
	"strings"

	"github.com/csa-dev/csa/internal/shellquote"
)

// Vars are the values a hook is given, as {name} in its command (each
// substituted as one shell-quoted word) and as CSA_NAME in its environment
// (CSA_HOOK_EVENT for the event). Values a point of the run does not know
// yet (the status before a run) are empty.
type Vars struct {
	SessionID   string
	Tool        string
	Model       string
	Status      string
	ExitCode    string
	SessionDir  string
	ProjectRoot string
	Depth       string
	ParentID    string
	// FromModel and ToModel: on_failover's tier specs (tool/provider/model).
	FromModel string
	ToModel   string
	// Reason: on_needs_input's why (the classifier's reason).
	Reason string
}

// Names are the variables a command may use, each {name}.
var Names = []string{"event", "session_id", "tool", "model", "status", "exit_code", "session_dir",
	"project_root", "depth", "parent_id", "from_model", "to_model", "reason"}

func (v Vars) values(ev Event) map[string]string {
	return map[string]string{
		"event": string(ev), "session_id": v.SessionID, "tool": v.Tool, "model": v.Model, "status": v.Status,
		"exit_code": v.ExitCode, "session_dir": v.SessionDir, "project_root": v.ProjectRoot, "depth": v.Depth,
		"parent_id": v.ParentID, "from_model": v.FromModel, "to_model": v.ToModel, "reason": v.Reason,
	}
}

// Expand substitutes each {name} of Names in cmd by its value quoted for
// sh, so that no value can be read as shell syntax. Braces that name no
// variable (awk's {print $1}, sh's ${HOME}) are left alone.
func Expand(cmd string, ev Event, v Vars) string {
	vals := v.values(ev)
	var b strings.Builder
	for {
		i := strings.IndexByte(cmd, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(cmd[i:], '}')
		if j < 0 {
			break
		}
		name := cmd[i+1 : i+j]
		val, ok := vals[name]
		// ${name} is the shell's own expansion, not a csa variable.
		if !ok || i > 0 && cmd[i-1] == '$' {
			b.WriteString(cmd[:i+1])
			cmd = cmd[i+1:]
			continue
		}
		b.WriteString(cmd[:i])
		b.WriteString(shellquote.Quote(val))
		cmd = cmd[i+j+1:]
	}
	b.WriteString(cmd)
	return b.String()
}

// env is base with the variables set (later entries win).
func (v Vars) env(base []string, ev Event) []string {
	out := append([]string(nil), base...)
	out = append(out, "CSA_HOOK_EVENT="+string(ev))
	vals := v.values(ev)
	for _, n := range Names[1:] {
		out = append(out, "CSA_"+strings.ToUpper(n)+"="+vals[n])
	}
	return out
}
