package hooks

import (
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/perm"
)

// condition evaluates hooks' "if" conditions on call (nil: no call, no
// condition holds). A condition is a permission rule matched as the
// permission rules are (perm.Rule.MatchesCall); the tool may be named by
// one of its aliases (Agent for Task). A condition that is no rule never
// holds.
func (e *Engine) condition(call *loop.Call) func(string) bool {
	if call == nil {
		return nil
	}
	name, subject := call.Tool.Name(), call.Tool.Subject(call.Input)
	return func(cond string) bool {
		r, err := perm.ParseRule(cond)
		if err != nil {
			return false
		}
		for _, n := range append([]string{name}, toolAliases[name]...) {
			if r.MatchesCall(n, subject, e.o.Cwd) {
				return true
			}
		}
		return false
	}
}
