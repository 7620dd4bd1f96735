package loop

import (
	"context"
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Who is the agent a step belongs to: ID is "" for the main agent, a
// subagent's id otherwise, with its type.
type Who struct{ ID, Type string }

// Call is one tool call about to run.
type Call struct {
	Who   Who
	ID    string // the tool_use id
	Tool  tool.Tool
	Input json.RawMessage
	// Hook is what the hooks decided before the permission check: "",
	// Allow (a hook approved the call: the policy need not ask) or Ask (a
	// hook wants the call confirmed even if the policy allows it).
	Hook string
}

// Decisions a hook can make on a call.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)

// Verdict is what the hooks say before a call runs.
type Verdict struct {
	Decision string          // "", Allow, Deny or Ask
	Reason   string          // why, for the model when Deny
	Input    json.RawMessage // the input to run with instead (nil: unchanged)
	Context  string          // more for the model, beside the call's result
	Stop     string          // when set, the run ends after this turn with this text
}

// Aftermath is what the hooks say after a call ran: Context goes to the
// model beside the result, Stop ends the run after this turn.
type Aftermath struct{ Context, Stop string }

// Hooks are the user's programs around the loop's steps. The loop knows
// nothing of how they run; it asks at three points.
type Hooks interface {
	// BeforeTool runs before the permission check of a call.
	BeforeTool(ctx context.Context, c Call) Verdict
	// AfterTool runs once the call has its result.
	AfterTool(ctx context.Context, c Call, res tool.Result) Aftermath
	// BeforeStop runs when the model answered without calling tools and
	// the run would end; active is true when an earlier BeforeStop of
	// this run kept it going. A non-empty again is the next user message:
	// the run goes on.
	BeforeStop(ctx context.Context, who Who, active bool, last string) (again string)
}
