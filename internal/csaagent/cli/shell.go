package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/tools"
	"github.com/csa-dev/csa/internal/proc"
)

// shellTimeout is a shell line's limit, the Bash tool's default, as in
// Claude Code.
const shellTimeout = 2 * time.Minute

// commandShell runs a command's shell lines ("!`git status`") for
// skills.RunShell: a line runs only when the session's permissions allow
// it as a Bash call, the command's allowed-tools granted, as Claude Code
// checks it; nobody is asked.
type commandShell struct {
	s     *session
	allow []perm.Rule
}

func (c commandShell) Allowed(command string) (bool, string) {
	input, _ := json.Marshal(map[string]string{"command": command})
	c.s.policy.Grant(c.allow)
	defer c.s.policy.Revoke()
	d := c.s.policy.Check(tools.NewBash(), input)
	return d.Allow, d.Reason
}

func (c commandShell) Run(ctx context.Context, command string) (string, string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, shellTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	ps, err := proc.Run(ctx, proc.Spec{Path: "bash", Args: []string{"-c", command}, Dir: c.s.env.Cwd,
		Stdout: &stdout, Stderr: &stderr}, shellGrace)
	if ps == nil {
		return "", "", -1, err
	}
	if err != nil { // timed out or interrupted: the line failed
		return stdout.String(), stderr.String() + "\n[Command interrupted]", -1, nil
	}
	return stdout.String(), stderr.String(), ps.ExitCode(), nil
}

// shellGrace is how long a stopped shell line has to end.
const shellGrace = 2 * time.Second
