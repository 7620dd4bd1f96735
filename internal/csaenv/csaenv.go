// Package csaenv is csa's environment contract: every CSA_ variable that
// csa and its sibling programs set or read, each named once here with what
// it means. docs/environment.md's table is generated from Vars (make docs),
// so the names, the code and the documentation cannot drift apart. The
// package imports nothing: csa-agent and csa-mcp use it without csa's
// runner.
package csaenv

// The genealogy: set by csa in the environment of each run's program, so
// that a csa called from inside the run knows its parent.
const (
	// SessionID is the id of the session the process runs in; a nested
	// csa run records it as its parent, and the run's keeper kills every
	// process that carries it.
	SessionID = "CSA_SESSION_ID"
	// Depth is that session's depth (0 for a run nobody started); a nested
	// run is refused beyond max_recursion_depth.
	Depth = "CSA_DEPTH"
	// ProjectRoot is the session's project root.
	ProjectRoot = "CSA_PROJECT_ROOT"
	// ParentSession is the id of the session's parent, when it has one.
	ParentSession = "CSA_PARENT_SESSION"
	// Tool is the tool the session runs (claude, codex, ...).
	Tool = "CSA_TOOL"
	// ParentTool is the parent's tool, when the session has a parent.
	ParentTool = "CSA_PARENT_TOOL"
	// SessionDir is the session's directory in csa's state directory.
	SessionDir = "CSA_SESSION_DIR"
)

// The sandbox: set by csa in the environment of a run whose network is
// confined (csa run --isolate net).
const (
	// EgressProxy is the address (127.0.0.1:PORT) of the run's egress
	// proxy, its only way out: a nested confined csa run reuses it (its
	// parent's Landlock domain lets nothing else out).
	EgressProxy = "CSA_EGRESS_PROXY"
)

// Run are the genealogy variables: what ties a process to one csa run.
var Run = []string{SessionID, Depth, ProjectRoot, ParentSession, Tool, ParentTool, SessionDir}

// Where csa keeps its files: set by the user (or csa dev agent-env).
const (
	// StateDir is where csa keeps sessions and its other state.
	StateDir = "CSA_STATE_DIR"
	// ConfigHome is the directory of csa's config.toml and hooks.toml.
	ConfigHome = "CSA_CONFIG_HOME"
	// AgentsCache is csa's cache of the pinned agent programs.
	AgentsCache = "CSA_AGENTS_CACHE"
)

// csa-agent's own settings, set by the user.
const (
	// AgentConfig is csa-agent's config file.
	AgentConfig = "CSA_AGENT_CONFIG"
	// AgentModel is csa-agent's model when no --model is given.
	AgentModel = "CSA_AGENT_MODEL"
)

// Set by csa workflow for the programs of its steps.
const (
	// WorkflowRun is the id of the workflow run.
	WorkflowRun = "CSA_WORKFLOW_RUN"
	// WorkflowStep is the key of the step.
	WorkflowStep = "CSA_WORKFLOW_STEP"
)

// Set by csa for a hook's command, beside SessionID, Tool, SessionDir,
// ProjectRoot and Depth, over the environment the run's program gets.
const (
	// HookEvent is the event the hook runs for (pre_run, post_run, ...).
	HookEvent = "CSA_HOOK_EVENT"
	// Model is the session's model.
	Model = "CSA_MODEL"
	// Status is the session's status (pending before the run).
	Status = "CSA_STATUS"
	// ExitCode is the program's exit code, empty before it ends.
	ExitCode = "CSA_EXIT_CODE"
	// ParentID is the session's parent, empty for none.
	ParentID = "CSA_PARENT_ID"
	// FromModel and ToModel are on_failover's tier specs.
	FromModel = "CSA_FROM_MODEL"
	ToModel   = "CSA_TO_MODEL"
	// Reason is on_needs_input's why.
	Reason = "CSA_REASON"
	// OverlapWith and OverlapPaths are on_overlap's other session and
	// the paths newly shared with it.
	OverlapWith  = "CSA_OVERLAP_WITH"
	OverlapPaths = "CSA_OVERLAP_PATHS"
)

// Set by csa when it hands a command over to a sibling program.
const (
	// CalledAs is the name the user typed for the program's root (csa mcp
	// for csa-mcp, csa for csa-ui), so that its errors name the command
	// typed; the program unsets it, so its own children never see it.
	CalledAs = "CSA_CALLED_AS"
)

// Read by csa so that its tests can fake the host's cgroups.
const (
	// TestCgroupRoot stands for /sys/fs/cgroup.
	TestCgroupRoot = "CSA_TEST_CGROUP_ROOT"
	// TestSelfCgroup stands for csa's own cgroup (/proc/self/cgroup).
	TestSelfCgroup = "CSA_TEST_SELF_CGROUP"
	// TestNoLandlock, set to 1, makes csa find no Landlock in the kernel.
	TestNoLandlock = "CSA_TEST_NO_LANDLOCK"
)
