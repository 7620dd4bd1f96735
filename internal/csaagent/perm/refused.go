package perm

import (
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Refused is Check, telling also whether its denial is final: a deny rule
// or plan mode refuses a call whoever approves it (a hook's or a person's
// approval cannot override them, as in Claude Code), whereas any other
// denial only means that nobody granted the call.
func (p *Policy) Refused(t tool.Tool, input json.RawMessage) (d Decision, final bool) {
	d = p.Check(t, input)
	if d.Allow {
		return d, false
	}
	if _, ok := p.match(p.deny, t.Name(), t.Subject(input), true); ok {
		return d, true
	}
	return d, p.Mode() == Plan && !t.ReadOnly(input)
}
