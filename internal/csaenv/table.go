package csaenv

import "strings"

// Var is one variable of the contract as docs/environment.md lists it.
type Var struct {
	Name    string
	Meaning string
	SetBy   string
}

const (
	byCsa      = "csa, for each run's program"
	byCsaHook  = "csa, for each run's program and each hook's command"
	byHook     = "csa, for a hook's command"
	byUser     = "you (csa dev agent-env prints it)"
	byWorkflow = "csa workflow, for its steps"
)

// Vars is every variable of the contract, in the table's order.
var Vars = []Var{
	{SessionID, "The id of the session the process runs in (in a hook: the hook's session). A `csa run` inside it records it as its parent; the run's keeper kills every process that carries it.", byCsaHook},
	{Depth, "The session's depth, 0 for a run no session started. A nested `csa run` is refused (exit 3) beyond `max_recursion_depth`; a malformed value is refused (exit 2).", byCsaHook},
	{ProjectRoot, "The session's project root.", byCsaHook},
	{ParentSession, "The id of the session's parent; unset for a session without one.", byCsa},
	{Tool, "The tool the session runs (`claude-code`, `codex`, ...): `--tool auto` and the reviewer choice take it as the caller's tool.", byCsaHook},
	{ParentTool, "The parent's tool; unset for a session without a parent.", byCsa},
	{SessionDir, "The session's directory: csa-agent keeps its conversations under it and records its subagents as the session's children.", byCsaHook},
	{EgressProxy, "The address (`127.0.0.1:PORT`) of the egress proxy of a run whose network is confined (`--isolate net`); the program's `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` point to it. A confined `csa run` inside it uses it rather than starting its own proxy, and allows connects to its port.", byCsa},
	{StateDir, "Where csa keeps sessions and its other state; default `$XDG_STATE_HOME/csa`.", byUser},
	{ConfigHome, "The directory of csa's `config.toml` and `hooks.toml`; default `$XDG_CONFIG_HOME/csa`.", byUser},
	{AgentsCache, "csa's cache of the pinned agent programs; default `~/.cache/csa/agents`.", byUser},
	{AgentConfig, "csa-agent's config file; default `$XDG_CONFIG_HOME/csa-agent/config.toml`.", "you"},
	{AgentModel, "csa-agent's model when no `--model` is given, before its config's `model`.", "you"},
	{WorkflowRun, "The id of the workflow run the step belongs to.", byWorkflow},
	{WorkflowStep, "The key of the step.", byWorkflow},
	{HookEvent, "The event the hook runs for (`pre_run`, `post_run`, ...).", byHook},
	{Model, "The session's model.", byHook},
	{Status, "The session's status, `pending` before the run.", byHook},
	{ExitCode, "The program's exit code, empty before it ended.", byHook},
	{ParentID, "The session's parent, empty for none.", byHook},
	{FromModel, "on_failover: the tier spec that was rate limited.", byHook},
	{ToModel, "on_failover: the tier spec the run goes on with.", byHook},
	{Reason, "on_needs_input: why the session needs input.", byHook},
	{OverlapWith, "on_overlap: the other live session changing the same files.", byHook},
	{OverlapPaths, "on_overlap: the files newly changed by both, one a line.", byHook},
	{CalledAs, "The command the user typed for a sibling program's root (`csa mcp` for csa-mcp, `csa` for csa-ui): its errors and usage hints name it. The program unsets it for its own children.", "csa, for csa-mcp and csa-ui when it hands a command over"},
	{TestCgroupRoot, "Stands for `/sys/fs/cgroup` when csa probes the host.", "csa's tests"},
	{TestSelfCgroup, "Stands for csa's own cgroup when csa probes the host.", "csa's tests"},
	{TestNoLandlock, "Set to 1, csa finds no Landlock in the kernel: `[sandbox] mode = \"required\"` refuses a confined run (exit 3), best-effort runs it unconfined and records why.", "csa's tests"},
}

// Markdown is Vars as a markdown table.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Variable | Meaning | Set by |\n|---|---|---|\n")
	for _, v := range Vars {
		b.WriteString("| `" + v.Name + "` | " + v.Meaning + " | " + v.SetBy + " |\n")
	}
	return b.String()
}
