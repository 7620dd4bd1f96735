package hooks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Policy is the permission policy (perm.Policy).
type Policy interface {
	Refused(t tool.Tool, input json.RawMessage) (d perm.Decision, final bool)
}

// Asker puts a call to a person (a protocol front end's client); answered
// is false when nobody is there to ask.
type Asker func(ctx context.Context, c loop.Call, reason string) (allow bool, why string, answered bool)

// Permit is the permission check with the hooks in it, as Claude Code
// orders them. PreToolUse ran first (the loop asked BeforeTool): its deny
// never reaches here; its allow skips the policy's asking but not its
// final denials (deny rules, plan mode); its ask makes the call a
// permission request even when the policy allows it. A call that would
// be asked about goes to the PermissionRequest hooks, whose allow or
// deny decides; undecided, the Notification hooks hear of it and ask
// decides (a front end's person); with nobody to ask, as in an unattended
// run, the call is denied.
func (e *Engine) Permit(p Policy, ask Asker) loop.Permit {
	return func(ctx context.Context, c loop.Call) (bool, string) {
		d, final := p.Refused(c.Tool, c.Input)
		switch {
		case final:
			return false, d.Reason
		case c.Hook == loop.Allow:
			return true, "allowed by a PreToolUse hook"
		case d.Allow && c.Hook != loop.Ask:
			return true, d.Reason
		}
		switch decision, reason := e.PermissionRequest(ctx, c); decision {
		case loop.Allow:
			return true, reason
		case loop.Deny:
			return false, reason
		}
		name := c.Tool.Name()
		e.Notify(ctx, c.Who, "permission_prompt", "Permission needed", fmt.Sprintf("csa-agent needs your permission to use %s", name))
		if ask != nil {
			why := d.Reason
			if d.Allow {
				why = "a PreToolUse hook asks for this call to be confirmed"
			}
			if allow, reason, ok := ask(ctx, c, why); ok {
				return allow, reason
			}
		}
		if !d.Allow {
			return false, d.Reason
		}
		return false, fmt.Sprintf("a PreToolUse hook asks for this %s call to be confirmed, and this agent runs unattended, so nobody can confirm it", name)
	}
}
