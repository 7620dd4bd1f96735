package runhooks

import (
	"strings"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/shellquote"
)

// Vars are the values a hook is given, as {name} in its command (each
// substituted as one shell-quoted word) and as a CSA_ variable in its
// environment (named). Values a point of the run does not know yet (the
// status before a run) are empty.
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
	// OverlapWith and OverlapPaths: on_overlap's other session and the
	// paths newly shared with it, one a line.
	OverlapWith  string
	OverlapPaths string
}

// named are the variables, each {name} in a command and env in its
// environment.
var named = []struct{ name, env string }{
	{"event", csaenv.HookEvent}, {"session_id", csaenv.SessionID}, {"tool", csaenv.Tool}, {"model", csaenv.Model},
	{"status", csaenv.Status}, {"exit_code", csaenv.ExitCode}, {"session_dir", csaenv.SessionDir},
	{"project_root", csaenv.ProjectRoot}, {"depth", csaenv.Depth}, {"parent_id", csaenv.ParentID},
	{"from_model", csaenv.FromModel}, {"to_model", csaenv.ToModel}, {"reason", csaenv.Reason},
	{"overlap_with", csaenv.OverlapWith}, {"overlap_paths", csaenv.OverlapPaths},
}

// Names are the variables a command may use, each {name}.
var Names = func() []string {
	var ns []string
	for _, n := range named {
		ns = append(ns, n.name)
	}
	return ns
}()

func (v Vars) values(ev Event) map[string]string {
	return map[string]string{
		"event": string(ev), "session_id": v.SessionID, "tool": v.Tool, "model": v.Model, "status": v.Status,
		"exit_code": v.ExitCode, "session_dir": v.SessionDir, "project_root": v.ProjectRoot, "depth": v.Depth,
		"parent_id": v.ParentID, "from_model": v.FromModel, "to_model": v.ToModel, "reason": v.Reason,
		"overlap_with": v.OverlapWith, "overlap_paths": v.OverlapPaths,
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
	vals := v.values(ev)
	for _, n := range named {
		out = append(out, n.env+"="+vals[n.name])
	}
	return out
}
