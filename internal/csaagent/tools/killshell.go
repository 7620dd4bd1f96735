package tools

import (
	"context"
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// KillShell stops a background shell.
type KillShell struct{ base[killShellInput] }

// NewKillShell is the KillShell tool.
func NewKillShell() *KillShell {
	return &KillShell{base[killShellInput]{"KillShell", killShellDesc}}
}

type killShellInput struct {
	ShellID string `json:"shell_id" jsonschema:"The ID of the background shell to kill"`
}

const killShellDesc = `- Kills a running background bash shell by its ID (and every process it started)
- Takes a shell_id parameter identifying the shell to kill
- Returns a success or failure status; its remaining output can still be read with BashOutput
- Use this tool when you need to terminate a long-running shell`

func (*KillShell) ConcurrencySafe(json.RawMessage) bool { return false }
func (*KillShell) ReadOnly(json.RawMessage) bool        { return false }
func (*KillShell) Subject(in json.RawMessage) string    { return field(in, "shell_id") }

func (k *KillShell) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := k.parse(input)
	if !ok {
		return bad, nil
	}
	if env.Jobs == nil {
		return tool.Errorf("no background shells here"), nil
	}
	if _, err := env.Jobs.Kill(in.ShellID); err != nil {
		return tool.Errorf("%v", err), nil
	}
	return tool.Result{Output: "Successfully killed shell: " + in.ShellID}, nil
}
