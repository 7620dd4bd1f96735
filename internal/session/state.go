package session

import (
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/sandbox"
)

// Status is where a session is in its life. The set and its transitions are
// closed: see transitions.
type Status string

const (
	Pending   Status = "pending"   // created, program not started yet
	Running   Status = "running"   // program started under a live supervisor
	Completed Status = "completed" // program exited 0
	Failed    Status = "failed"    // program exited non-zero or could not start
	Crashed   Status = "crashed"   // the supervising csa died before recording an end
	Killed    Status = "killed"    // ended by a signal csa was asked to deliver
	TimedOut  Status = "timed_out" // ended by the total or idle timeout
)

// transitions is the state machine. Ended states may only go back to
// Pending, which is how a resumed session prepares its next turn.
var transitions = map[Status][]Status{
	Pending:   {Running, Failed, Killed, Crashed},
	Running:   {Completed, Failed, Killed, Crashed, TimedOut},
	Completed: {Pending},
	Failed:    {Pending},
	Crashed:   {Pending},
	Killed:    {Pending},
	TimedOut:  {Pending},
}

// Ended reports whether s is a final state of a run.
func (s Status) Ended() bool {
	switch s {
	case Completed, Failed, Crashed, Killed, TimedOut:
		return true
	}
	return false
}

// Valid reports whether s is a known status.
func (s Status) Valid() bool { _, ok := transitions[s]; return ok }

// CanMove reports whether the machine allows from -> to.
func CanMove(from, to Status) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// TransitionError reports a forbidden state change.
type TransitionError struct{ From, To Status }

func (e *TransitionError) Error() string {
	return fmt.Sprintf("session state cannot change from %s to %s", e.From, e.To)
}

// Usage is token accounting reported by an agent.
type Usage struct {
	InputTokens  int64 `toml:"input_tokens" json:"input_tokens"`
	OutputTokens int64 `toml:"output_tokens" json:"output_tokens"`
	CachedTokens int64 `toml:"cached_tokens,omitempty" json:"cached_tokens,omitempty"`
	// CacheWriteTokens are input tokens written to the provider's cache,
	// for programs that report them apart (Claude Code, opencode).
	CacheWriteTokens int64 `toml:"cache_write_tokens,omitempty" json:"cache_write_tokens,omitempty"`
}

// Failure says why a run did not succeed, in a class scripts can branch on.
type Failure struct {
	Class   string `toml:"class" json:"class"`
	Message string `toml:"message" json:"message"`
}

// Failure classes: the closed set a failed, killed or timed-out run is
// put in, the one definition scripts branch on (failure.class).
const (
	FailStart       = "start_failed"    // the program could not be started
	FailTimeout     = "timed_out"       // total or idle timeout
	FailInterrupted = "interrupted"     // csa got SIGINT, SIGTERM or SIGHUP
	FailKilled      = "killed"          // csa kill
	FailCrashed     = "crashed"         // died on a signal, failed for no known reason, or lost its supervisor
	FailNoResult    = "no_result"       // exited 0 without an answer
	FailOOM         = "oom_killed"      // killed by the kernel for exceeding its memory limit
	FailNoSpace     = "no_space"        // the disk holding the session filled up: csa stopped the run it could no longer record
	FailRateLimited = "rate_limited"    // the provider answered 429 or overloaded
	FailQuota       = "quota_exhausted" // the account's quota or credit is used up
	FailAuth        = "auth"            // the provider refused the credentials
	FailRefused     = "refused"         // a pre_session or pre_run hook refused the run
	FailBudget      = "budget_exceeded" // the run's tree cost more than its --max-cost
)

// FailureClasses lists every class, in the order docs/using.md gives them.
var FailureClasses = []string{FailRateLimited, FailQuota, FailAuth, FailCrashed, FailTimeout, FailNoResult,
	FailInterrupted, FailKilled, FailStart, FailOOM, FailNoSpace, FailRefused, FailBudget}

// RateLimited reports whether a failure class means the provider is
// limiting the account: a reason to fail over to another model.
func RateLimited(class string) bool { return class == FailRateLimited || class == FailQuota }

// State is the record of one session, stored as state.toml. Field names are
// the stable JSON contract of `csa inspect --json`.
type State struct {
	ID          string `toml:"id" json:"id"`
	Tool        string `toml:"tool" json:"tool"`
	Model       string `toml:"model,omitempty" json:"model,omitempty"`
	Status      Status `toml:"state" json:"state"`
	ProjectRoot string `toml:"project_root" json:"project_root"`
	Cwd         string `toml:"cwd" json:"cwd"`

	// Genealogy: the tree is logical, the storage flat.
	Depth      int    `toml:"depth" json:"depth"`
	ParentID   string `toml:"parent_id,omitempty" json:"parent_id,omitempty"`
	ParentTool string `toml:"parent_tool,omitempty" json:"parent_tool,omitempty"`
	// ParentUnknown: the caller gave its depth (CSA_DEPTH) but no session
	// id, or one that names no session, so the depth counts while the
	// parent cannot be named.
	ParentUnknown bool `toml:"parent_unknown,omitempty" json:"parent_unknown,omitempty"`

	CreatedAt time.Time `toml:"created_at" json:"created_at"`
	StartedAt time.Time `toml:"started_at" json:"started_at,omitempty"`
	EndedAt   time.Time `toml:"ended_at" json:"ended_at,omitempty"`

	// How the program was run. The prompt itself is in prompt.txt.
	Program     string   `toml:"program,omitempty" json:"program,omitempty"`
	Args        []string `toml:"args,omitempty" json:"args,omitempty"`
	PromptBytes int      `toml:"prompt_bytes" json:"prompt_bytes"`
	PromptVia   string   `toml:"prompt_via,omitempty" json:"prompt_via,omitempty"`
	Detached    bool     `toml:"detached,omitempty" json:"detached,omitempty"`
	// MCP names the MCP servers given to the program for its last turn
	// (csa's hub, "csa"), besides those the user configured it with.
	MCP       []string `toml:"mcp,omitempty" json:"mcp,omitempty"`
	TimeoutMS int64    `toml:"timeout_ms,omitempty" json:"timeout_ms,omitempty"`
	IdleMS    int64    `toml:"idle_timeout_ms,omitempty" json:"idle_timeout_ms,omitempty"`
	GraceMS   int64    `toml:"kill_grace_ms,omitempty" json:"kill_grace_ms,omitempty"`

	SupervisorPID int `toml:"supervisor_pid,omitempty" json:"supervisor_pid,omitempty"`
	PID           int `toml:"pid,omitempty" json:"pid,omitempty"`
	PGID          int `toml:"pgid,omitempty" json:"pgid,omitempty"`

	ExitCode *int     `toml:"exit_code,omitempty" json:"exit_code"`
	Signal   string   `toml:"signal,omitempty" json:"signal,omitempty"`
	Reason   string   `toml:"reason,omitempty" json:"reason,omitempty"`
	Failure  *Failure `toml:"failure,omitempty" json:"failure"`

	Result            string `toml:"result,omitempty" json:"result,omitempty"`
	ProviderSessionID string `toml:"provider_session_id,omitempty" json:"provider_session_id,omitempty"`
	// ProviderModel is the model the program said it used, when it says
	// (Model is what csa asked for, "" for the program's default).
	ProviderModel   string `toml:"provider_model,omitempty" json:"provider_model,omitempty"`
	Usage           *Usage `toml:"usage,omitempty" json:"usage,omitempty"`
	OutputBytes     int64  `toml:"output_bytes" json:"output_bytes"`
	OutputTruncated bool   `toml:"output_truncated,omitempty" json:"output_truncated,omitempty"`
	Turns           int    `toml:"turns,omitempty" json:"turns,omitempty"`
	// AgentRetries counts the model requests the agent retried by itself
	// in the last turn (as it reported them).
	AgentRetries int `toml:"agent_retries,omitempty" json:"agent_retries,omitempty"`

	// Tier and the attempts that failed over before this session, if it
	// was chosen from a tier.
	Tier          string    `toml:"tier,omitempty" json:"tier,omitempty"`
	FallbackChain []Attempt `toml:"fallback_chain,omitempty" json:"fallback_chain,omitempty"`

	// Resource control of the last turn.
	Sandbox       string `toml:"sandbox,omitempty" json:"sandbox,omitempty"`
	MemoryLimitMB int64  `toml:"memory_limit_mb,omitempty" json:"memory_limit_mb,omitempty"`
	PidsLimit     int64  `toml:"pids_limit,omitempty" json:"pids_limit,omitempty"`
	PeakMemoryMB  int64  `toml:"peak_memory_mb,omitempty" json:"peak_memory_mb,omitempty"`
	PeakSource    string `toml:"peak_source,omitempty" json:"peak_source,omitempty"` // cgroup (exact) or sampled
	PidsLimitHit  bool   `toml:"pids_limit_hit,omitempty" json:"pids_limit_hit,omitempty"`
	// Confinement is the sandbox policy the last turn's program ran
	// under; nil for none.
	Confinement *sandbox.Policy `toml:"confinement,omitempty" json:"confinement,omitempty"`

	// Interactive is set for a session run in a tmux pane.
	Interactive *Interactive `toml:"interactive,omitempty" json:"interactive,omitempty"`
	// Workspace is set for a run in a git worktree of its own (csa run
	// --worktree).
	Workspace *Workspace `toml:"workspace,omitempty" json:"workspace,omitempty"`

	// RawBytes holds, in base64 by JSON Pointer, the exact bytes of every
	// field above that is not valid UTF-8 (a prompt in args, a path, an
	// agent's answer), which the field itself shows with U+FFFD: TOML and
	// JSON strings hold only text (internal/verbatim).
	RawBytes map[string]string `toml:"raw_bytes,omitempty" json:"raw_bytes,omitempty"`
	// Damaged names the fields of a state file that could not be read
	// exactly (written by a csa that did not keep their bytes, or
	// corrupted): they show what could be read, or nothing.
	Damaged []string `toml:"damaged,omitempty" json:"damaged,omitempty"`
}

// Workspace is a run's own git worktree and branch (csa run --worktree).
// The branch starts at Base, the caller's HEAD; Snapshot is the commit on
// it holding the caller's uncommitted changes (Base itself when there
// were none), so the agent starts from what the caller sees; Head, once
// recorded, is the commit holding what the run changed. The run's change
// is Snapshot..Head: what diff, apply and merge take.
type Workspace struct {
	// Repo is the caller's repository (its top folder), where the branch
	// and the worktree are registered.
	Repo string `toml:"repo" json:"repo"`
	// Dir is the worktree's folder; "" once it is removed.
	Dir    string `toml:"dir,omitempty" json:"dir,omitempty"`
	Branch string `toml:"branch" json:"branch"`
	// Subdir is the caller's folder below Repo, where the run works in
	// the worktree ("" at the top).
	Subdir   string `toml:"subdir,omitempty" json:"subdir,omitempty"`
	Base     string `toml:"base" json:"base"`
	Snapshot string `toml:"snapshot" json:"snapshot"`
	// Head is the commit recording the run's change; "" until recorded
	// (Recorded tells a run that changed nothing, whose Head is Snapshot).
	Head     string `toml:"head,omitempty" json:"head,omitempty"`
	Recorded bool   `toml:"recorded,omitempty" json:"recorded,omitempty"`
	// The change's size (git diff --shortstat Snapshot..Head).
	Files      int `toml:"files,omitempty" json:"files,omitempty"`
	Insertions int `toml:"insertions,omitempty" json:"insertions,omitempty"`
	Deletions  int `toml:"deletions,omitempty" json:"deletions,omitempty"`
	// Keep: the worktree stays once the change is recorded
	// (--keep-worktree).
	Keep bool `toml:"keep,omitempty" json:"keep,omitempty"`
	// BranchDeleted: csa gc deleted the branch (its change merged, or
	// --branches); Snapshot and Head still name the change.
	BranchDeleted bool `toml:"branch_deleted,omitempty" json:"branch_deleted,omitempty"`
}

// Interactive is where an interactive session runs.
type Interactive struct {
	Socket      string `toml:"socket" json:"tmux_socket"`
	TmuxSession string `toml:"tmux_session" json:"tmux_session"`
	PanePID     int    `toml:"pane_pid,omitempty" json:"pane_pid,omitempty"`
	// RunID tells this run's exit record from a stale one.
	RunID string `toml:"run_id" json:"run_id"`
	// Hooks: the agent announces finished turns through hooks csa
	// installed for the session.
	Hooks bool `toml:"hooks,omitempty" json:"hooks,omitempty"`
}

// Attempt is one failed try before a failover.
type Attempt struct {
	SessionID string `toml:"session_id" json:"session_id"`
	Spec      string `toml:"spec" json:"spec"`
	Class     string `toml:"class" json:"class"`
	Message   string `toml:"message" json:"message"`
}

// Move changes the status if the state machine allows it.
func (s *State) Move(to Status) error {
	if !CanMove(s.Status, to) {
		return &TransitionError{From: s.Status, To: to}
	}
	s.Status = to
	return nil
}

// Duration is how long the session ran (so far, if it is running).
func (s *State) Duration(now time.Time) time.Duration {
	if s.StartedAt.IsZero() {
		return 0
	}
	if s.EndedAt.IsZero() {
		return now.Sub(s.StartedAt)
	}
	return s.EndedAt.Sub(s.StartedAt)
}
