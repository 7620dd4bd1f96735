// Package runner creates sessions and supervises the agent program of a run:
// process group, live output with a lossless record, timeouts, signal
// forwarding, and the final state. It is the one owner of a running
// session's records.
package runner

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/runhooks"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/verbatim"
)

// Spec is everything needed to start and supervise the program. It is saved
// as run.json so a detached supervisor runs exactly what its parent built.
// The environment is not saved (it may hold secrets): a detached supervisor
// inherits it from its parent.
type Spec struct {
	SessionID   string        `json:"session_id"`
	Tool        string        `json:"tool"`
	Program     string        `json:"program"`
	Args        []string      `json:"args"`
	Env         []string      `json:"env"` // KEY=VALUE set over the inherited environment
	StdinPrompt bool          `json:"stdin_prompt"`
	Cwd         string        `json:"cwd"`
	Timeout     time.Duration `json:"timeout"`
	IdleTimeout time.Duration `json:"idle_timeout"`
	Grace       time.Duration `json:"grace"`
	MaxLogBytes int64         `json:"max_log_bytes"`
	Detached    bool          `json:"detached"`
	Sandbox     Sandbox       `json:"sandbox"`
	// Slot names the concurrency slot a detached supervisor inherits.
	SlotTool  string `json:"slot_tool,omitempty"`
	SlotIndex int    `json:"slot_index,omitempty"`
	// ACP, when set, runs the tool's ACP agent; Program and Args above are
	// the fallback while its connection is set up.
	ACP *ACPSpec `json:"acp,omitempty"`
	// SubmitDelay is the pause between typed text and its Enter, for an
	// interactive session.
	SubmitDelay time.Duration `json:"submit_delay,omitempty"`
	// ReadyDelay: input typed this soon after the start may be lost;
	// ReadyHook: the agent reports being up (then csa waits for that).
	ReadyDelay time.Duration `json:"ready_delay,omitempty"`
	ReadyHook  bool          `json:"ready_hook,omitempty"`
	// GiveUpAfterRetries stops the run, rate_limited, once the agent has
	// retried a rate-limited request this many times in a row (0: never):
	// a tier fails over sooner than the program would give up.
	GiveUpAfterRetries int `json:"give_up_after_retries,omitempty"`
	// MaxCostUSD stops the run, budget_exceeded, once its tree has cost
	// more (0: no limit), priced by the built-in table under Prices.
	MaxCostUSD float64               `json:"max_cost_usd,omitempty"`
	Prices     map[string]cost.Price `json:"prices,omitempty"`
	// Warnings are recorded as warning events when the run starts (what
	// csa run decided before the session existed, as a missing MCP hub).
	Warnings []string `json:"warnings,omitempty"`
	// Hooks are the run's hooks (nil for none); Prelude the outcomes of
	// those that ran before the session's events were opened (on_failover,
	// pre_session, the prompt guards), recorded as its first events.
	Hooks   *runhooks.Set     `json:"hooks,omitempty"`
	Prelude []runhooks.Result `json:"prelude,omitempty"`
	// Classifier: an interactive session with on_needs_input hooks is
	// classified by its pane wrapper each heartbeat with these settings.
	Classifier *interactive.Settings `json:"classifier,omitempty"`
	// RawBytes keeps the exact bytes of the fields above that are not
	// UTF-8 (a prompt in Args, a path): see internal/verbatim.
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// Sandbox is the resource control and the file confinement of a run.
type Sandbox struct {
	Plan           resource.Plan          `json:"plan"`
	Caps           *resource.Capabilities `json:"caps,omitempty"`
	CsaExe         string                 `json:"csa_exe,omitempty"` // for the exec shim
	SampleInterval time.Duration          `json:"sample_interval"`
	StatsPath      string                 `json:"stats_path,omitempty"` // usage statistics to record the peak in
	// FS is the file confinement applied by the exec shim; nil for none.
	FS *sandbox.Policy `json:"fs,omitempty"`
}

const specFile = "run.json"

func saveSpec(store *session.Store, sp *Spec) error {
	data, err := verbatim.Marshal(sp)
	if err != nil {
		return err
	}
	return fsutil.WriteFileReplace(store.Path(sp.SessionID, specFile), data)
}

// LoadSpec reads the spec a parent saved for a detached supervisor.
func LoadSpec(store *session.Store, id string) (*Spec, error) {
	data, err := os.ReadFile(store.Path(id, specFile))
	if err != nil {
		return nil, fmt.Errorf("read run spec of %s: %w", id, err)
	}
	sp := new(Spec)
	bad, err := verbatim.Unmarshal(data, sp)
	if err != nil {
		return nil, fmt.Errorf("decode run spec of %s: %w", id, err)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("decode run spec of %s: cannot restore %s", id, strings.Join(bad, ", "))
	}
	return sp, nil
}

// stripped are removed from every child's environment: the CSA_ ones are
// set anew, the CLAUDE ones make a nested Claude Code refuse to start.
var stripped = append(slices.Clone(csaenv.Run),
	"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT",
	// PWD is set anew: some programs (OpenCode) take their working
	// directory from it rather than from the directory they start in.
	"PWD", "OLDPWD",
)

// Parent is the caller, read from the environment of a csa that runs
// inside an agent: its session (SessionID "" when only its depth is known)
// and its depth.
type Parent struct {
	SessionID   string
	Tool        string
	Depth       int // depth of the parent; a root caller has none
	ProjectRoot string
	// Gone is a CSA_SESSION_ID that names no session (ForgetGone).
	Gone string
}

// Describe names the parent for messages.
func (p *Parent) Describe() string {
	switch {
	case p.Gone != "":
		return fmt.Sprintf("%s=%d, %s=%s names no session", csaenv.Depth, p.Depth, csaenv.SessionID, p.Gone)
	case p.SessionID == "":
		return fmt.Sprintf("%s=%d without %s", csaenv.Depth, p.Depth, csaenv.SessionID)
	}
	return "parent session " + p.SessionID
}

// DepthError refuses a run deeper than max_recursion_depth.
type DepthError struct {
	Depth, Max int
	Parent     string // the parent, as Describe names it
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("recursion depth limit reached: this run would be at depth %d, max_recursion_depth is %d (%s)",
		e.Depth, e.Max, e.Parent)
}

// CheckDepth refuses a child of p (nil: no parent) deeper than max.
func (p *Parent) CheckDepth(max int) error {
	if p == nil || p.Depth+1 <= max {
		return nil
	}
	return &DepthError{Depth: p.Depth + 1, Max: max, Parent: p.Describe()}
}

// ForgetGone drops a parent id that names no session of store (removed,
// or never made): the run records parent_unknown, as for a caller that
// gave no id, rather than a parent that does not exist; the depth holds
// all the same. It reports whether it dropped one (kept in Gone).
func (p *Parent) ForgetGone(store *session.Store) bool {
	if p == nil || p.SessionID == "" || store.Taken(p.SessionID) != nil {
		return false
	}
	p.Gone, p.SessionID = p.SessionID, ""
	return true
}

// ParentFromEnv reads the caller's genealogy. Whenever CSA_DEPTH is set
// the depth holds, with or without CSA_SESSION_ID: a missing parent id is
// recorded, never a reason to forget the depth (the recursion limit would
// fail open). A malformed value is an error: guessing would defeat the
// limit too.
func ParentFromEnv(getenv func(string) string) (*Parent, error) {
	raw, rawDepth := getenv(csaenv.SessionID), getenv(csaenv.Depth)
	if raw == "" && rawDepth == "" {
		return nil, nil
	}
	d, err := strconv.Atoi(rawDepth)
	if err != nil || d < 0 {
		return nil, fmt.Errorf("%s=%q is not a depth", csaenv.Depth, rawDepth)
	}
	p := &Parent{Tool: getenv(csaenv.Tool), Depth: d, ProjectRoot: getenv(csaenv.ProjectRoot)}
	if raw != "" {
		id, err := session.NormalizePrefix(raw)
		if err != nil || len(id) != session.IDLen {
			return nil, fmt.Errorf("%s=%q is not a session id", csaenv.SessionID, raw)
		}
		p.SessionID = id
	}
	return p, nil
}

// ChildEnv is the environment of a session's program: base without the
// stripped variables, plus extra (the tool's own), plus the genealogy of
// st last: the last value of a name wins, and no configured variable may
// fake the genealogy (or the depth limit). It is the one place a child's
// csa environment is built.
func ChildEnv(base []string, st *session.State, sessionDir string, extra []string) []string {
	env := make([]string, 0, len(base)+len(extra)+len(stripped))
	for _, kv := range base {
		if !isStripped(kv) {
			env = append(env, kv)
		}
	}
	for _, kv := range extra {
		if !isStripped(kv) {
			env = append(env, kv)
		}
	}
	env = append(env,
		"PWD="+st.Cwd,
		csaenv.SessionID+"="+st.ID,
		csaenv.Depth+"="+strconv.Itoa(st.Depth),
		csaenv.ProjectRoot+"="+st.ProjectRoot,
		csaenv.Tool+"="+st.Tool,
		csaenv.SessionDir+"="+sessionDir,
	)
	if st.ParentID != "" {
		env = append(env, csaenv.ParentSession+"="+st.ParentID)
	}
	if st.ParentTool != "" {
		env = append(env, csaenv.ParentTool+"="+st.ParentTool)
	}
	return env
}

func isStripped(kv string) bool {
	for _, k := range stripped {
		if strings.HasPrefix(kv, k+"=") {
			return true
		}
	}
	return false
}
