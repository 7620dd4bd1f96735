// Package config loads csa's configuration: an optional global file
// (GlobalPath) and an optional project file (ProjectPath), merged over
// built-in defaults and validated, with errors that name the file, line,
// column and dotted key at fault.
//
// The typed Config struct is the schema: its toml tags are the keys a file
// may hold. To add a setting, add a field with a toml tag, give it a default
// in Default, a rule in validate if it needs one, and a line in Template.
package config

import (
	"maps"
	"reflect"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/transport"
	"github.com/csa-dev/csa/internal/workspace"
)

// Config is the effective configuration.
type Config struct {
	// MaxRecursionDepth is the deepest nesting of csa runs started by
	// agents (CSA_DEPTH), 0 to 100.
	MaxRecursionDepth int             `toml:"max_recursion_depth"`
	Defaults          Defaults        `toml:"defaults"`
	Tools             ToolsConfig     `toml:"tools"`
	GC                GCConfig        `toml:"gc"`
	Output            OutputConfig    `toml:"output"`
	Resources         ResourcesConfig `toml:"resources"`
	Sandbox           SandboxConfig   `toml:"sandbox"`
	// Tiers are named lists of model specs ("tool/provider/model/thinking")
	// a run can use with --tier, rotating or failing over between them.
	Tiers map[string]TierConfig `toml:"tiers"`
	// Aliases name model specs: --model fast, or an alias in a tier.
	Aliases  map[string]string `toml:"aliases"`
	Failover FailoverConfig    `toml:"failover"`
	Review   ReviewConfig      `toml:"review"`
	// Interactive tunes sessions run in tmux (csa run -i).
	Interactive InteractiveConfig `toml:"interactive"`
	// MCP is the MCP hub every run's agent shares (csa mcp).
	MCP MCPConfig `toml:"mcp"`
	// Cluster is the NATS JetStream cluster of csa run --remote and csa
	// worker.
	Cluster ClusterConfig `toml:"cluster"`
	// Prices override or add to the built-in price table by model name
	// (internal/cost).
	Prices map[string]PriceConfig `toml:"prices"`
}

// InteractiveConfig tunes interactive sessions and their classifier.
type InteractiveConfig struct {
	// Grace: a session this young, with no clearer signal, is just_started.
	Grace Duration `toml:"grace"`
	// Quiet: output and CPU silent this long end a turn of an agent that
	// has no turn hooks.
	Quiet Duration `toml:"quiet"`
	// StuckAfter: an input with no output, CPU or turn event this long is
	// stuck.
	StuckAfter Duration `toml:"stuck_after"`
	// Width and Height of the pane.
	Width  int `toml:"width"`
	Height int `toml:"height"`
}

// TierConfig is one tier.
type TierConfig struct {
	Models []string `toml:"models"`
	// Strategy is priority (always the first model that is not cooling
	// down) or round-robin (the next model on each run, shared by every
	// csa process).
	Strategy string `toml:"strategy"`
	// Fallback names the tiers to try when every model of this one failed.
	Fallback []string `toml:"fallback"`
}

// FailoverConfig governs retries and failover on rate limits.
type FailoverConfig struct {
	// Retries is how often a transient 429 is retried on the same model,
	// with exponential backoff, before failing over.
	Retries int `toml:"retries"`
	// Backoff is the first retry's delay; it doubles each time.
	Backoff Duration `toml:"backoff"`
	// Cooldown is how long a provider that answered rate_limited or
	// quota_exhausted is skipped by every csa process, unless the provider
	// said when to retry.
	Cooldown Duration `toml:"cooldown"`
	// AgentRetries: a tier run fails over once its agent program has
	// retried a rate-limited request this many times in a row, rather than
	// wait for the program to give up (minutes); 0 waits for it.
	AgentRetries int `toml:"agent_retries"`
}

// ReviewConfig configures csa review.
type ReviewConfig struct {
	Reviewers int    `toml:"reviewers"`
	Consensus string `toml:"consensus"` // majority, unanimous or weighted
	// Weights of reviewers' verdicts in weighted consensus, by tool
	// ("codex") or by tool and model ("codex/gpt-5"); default 1.
	Weights map[string]float64 `toml:"weights"`
}

// ResourcesConfig is resource control for every run; tools override parts
// of it in [tools.NAME.resources].
type ResourcesConfig struct {
	// EnforcementMode is Required (refuse to run without the preferred
	// sandbox layer, or with no limit to enforce), BestEffort (use the best layer there is, warn once)
	// or Off.
	EnforcementMode string `toml:"enforcement_mode"`
	// Sandbox is the preferred layer: auto (the best available), systemd,
	// cgroup2, cgroup1, setrlimit or none.
	Sandbox string `toml:"sandbox"`
	// MemoryMaxMB limits a run's memory; 0 for no limit.
	MemoryMaxMB int64 `toml:"memory_max_mb"`
	// MemorySwapMaxMB limits a run's swap (cgroup layers only); 0 for none.
	MemorySwapMaxMB int64 `toml:"memory_swap_max_mb"`
	// PidsMax limits a run's processes; 0 for no limit.
	PidsMax int64 `toml:"pids_max"`
	// MinFreeMemoryMB is kept free on top of a tool's estimated need when
	// deciding whether a run may start.
	MinFreeMemoryMB int64 `toml:"min_free_memory_mb"`
	// SampleInterval is how often memory is sampled where no cgroup keeps
	// the peak.
	SampleInterval Duration `toml:"sample_interval"`
	// InitialEstimates is each tool's memory need in MB until it has a
	// history of its own.
	InitialEstimates map[string]int64 `toml:"initial_estimates"`
}

// SandboxConfig confines what a run's program may read and write, and
// what it may reach (internal/sandbox; docs/sandbox.md).
type SandboxConfig struct {
	// FS confines files for every headless run (csa run --isolate fs).
	FS bool `toml:"fs"`
	// Mode is required (refuse where the kernel cannot confine) or
	// best-effort (run, and record what was not enforced).
	Mode string `toml:"mode"`
	// DenyRead are paths no run may read, on top of the defaults; ~ is
	// the home directory.
	DenyRead []string `toml:"deny_read"`
	// AllowWrite are paths every run may write, on top of its working
	// directory, the temp dir, csa's state and the tool's own state.
	AllowWrite []string `toml:"allow_write"`
	// Net confines the network of every headless run (csa run --isolate
	// net): out only through csa's egress proxy, to the tool's model
	// endpoints, its API hosts and AllowHosts.
	Net bool `toml:"net"`
	// AllowHosts are more hosts a confined network may reach (egress
	// rules: host, *.domain, an IP, each with an optional :port).
	AllowHosts []string `toml:"allow_hosts"`
}

// ToolResources overrides [resources] for one tool; unset fields inherit.
type ToolResources struct {
	EnforcementMode *string `toml:"enforcement_mode"`
	Sandbox         *string `toml:"sandbox"`
	MemoryMaxMB     *int64  `toml:"memory_max_mb"`
	MemorySwapMaxMB *int64  `toml:"memory_swap_max_mb"`
	PidsMax         *int64  `toml:"pids_max"`
}

// Defaults holds the defaults of `csa run`.
type Defaults struct {
	// Tool is used when no --tool is given; "" means none.
	Tool string `toml:"tool"`
	// Timeout limits a run's total time; zero means no limit.
	Timeout Duration `toml:"timeout"`
	// IdleTimeout limits the time a run may go without output; zero means
	// no limit.
	IdleTimeout Duration `toml:"idle_timeout"`
	// KillGrace is the time between SIGTERM and SIGKILL.
	KillGrace Duration `toml:"kill_grace"`
	// Worktree runs every run in a git worktree of its own (csa run
	// --worktree), but for a run started inside another's worktree.
	Worktree bool `toml:"worktree"`
	// WorktreeBranch names a worktree run's branch: a template with the
	// placeholders of workspace.Placeholders.
	WorktreeBranch string `toml:"worktree_branch"`
	// WorktreeSubmodules checks out the submodules in a worktree run's
	// worktree (csa run --worktree-submodules).
	WorktreeSubmodules bool `toml:"worktree_submodules"`
}

// ToolsConfig holds one table per tool of the registry (agents.Registry),
// keyed by its name; other keys are refused by validation.
type ToolsConfig map[string]ToolConfig

// ToolConfig configures one tool.
type ToolConfig struct {
	// Path is the program to run: a path, or a name looked up on PATH
	// (then, for the tool's own program name, in csa's cache of pinned
	// programs). It defaults to the tool's program name.
	Path string `toml:"path"`
	// Enabled says whether csa may run the tool.
	Enabled bool `toml:"enabled"`
	// Model is the model to ask for; "" means the tool's own default.
	Model string `toml:"model"`
	// Effort is the thinking or reasoning effort; "" for the tool's own.
	Effort string `toml:"effort"`
	// Yolo lets the agent act without asking for approval, as a headless
	// sub-agent must.
	Yolo bool `toml:"yolo"`
	// MaxConcurrent bounds how many runs of the tool may run at once on
	// this machine; 0 for no bound.
	MaxConcurrent int `toml:"max_concurrent"`
	// Resources overrides [resources] for this tool.
	Resources ToolResources `toml:"resources"`
	// Isolate overrides [sandbox] fs for this tool: "fs", "fs,net" or
	// "none"; "" follows [sandbox].
	Isolate string `toml:"isolate"`
	// Env holds extra environment variables for the program.
	Env map[string]string `toml:"env"`
	// Transport is how csa talks to the tool: cli (its structured output),
	// acp (the Agent Client Protocol through ACPPath) or auto (acp when
	// the tool has an ACP agent and it is installed, else cli).
	Transport string `toml:"transport"`
	// ACPPath is the tool's ACP agent program, found like Path; "" where
	// the tool has none.
	ACPPath string `toml:"acp_path"`
	// Worktree runs this tool's runs in a git worktree of their own, as
	// defaults.worktree does every run's.
	Worktree bool `toml:"worktree"`
	// WorktreeBranch names this tool's worktree runs' branches, over
	// defaults.worktree_branch; "" for that one.
	WorktreeBranch string `toml:"worktree_branch"`
	// WorktreeSubmodules checks out the submodules in this tool's
	// worktree runs, as defaults.worktree_submodules does in every one.
	WorktreeSubmodules bool `toml:"worktree_submodules"`
}

// GCConfig configures `csa gc`.
type GCConfig struct {
	// MaxAgeDays is the age in days after which sessions are removed.
	MaxAgeDays int `toml:"max_age_days"`
}

// OutputConfig configures how run output is recorded.
type OutputConfig struct {
	// MaxLogBytes caps the recorded output log of one session.
	MaxLogBytes int64 `toml:"max_log_bytes"`
}

// Default returns the configuration that applies when no file sets anything.
func Default() Config {
	c := Config{
		MaxRecursionDepth: 5,
		Defaults:          Defaults{KillGrace: Duration(5 * time.Second), WorktreeBranch: workspace.DefaultBranch},
		GC:                GCConfig{MaxAgeDays: 30},
		Output:            OutputConfig{MaxLogBytes: 1 << 30},
		Resources: ResourcesConfig{
			EnforcementMode: resource.BestEffort, Sandbox: resource.Auto, MinFreeMemoryMB: 512,
			SampleInterval: Duration(500 * time.Millisecond),
			// Recommended starting points (peak MB of one run) until a
			// tool has a history of its own.
			InitialEstimates: map[string]int64{},
		},
		Sandbox:  SandboxConfig{Mode: sandbox.BestEffort},
		Tiers:    map[string]TierConfig{},
		Aliases:  map[string]string{},
		Prices:   map[string]PriceConfig{},
		Failover: FailoverConfig{Retries: 2, Backoff: Duration(2 * time.Second), Cooldown: Duration(60 * time.Second), AgentRetries: 2},
		Review:   ReviewConfig{Reviewers: 2, Consensus: "majority", Weights: map[string]float64{}},
		Interactive: InteractiveConfig{
			Grace: Duration(5 * time.Second), Quiet: Duration(3 * time.Second), StuckAfter: Duration(5 * time.Minute),
			Width: 200, Height: 50,
		},
	}
	c.MCP = defaultMCP()
	c.Cluster = ClusterConfig{Default: ClusterLocal}
	c.Tools = ToolsConfig{}
	for _, s := range agents.Registry {
		tc := ToolConfig{Path: s.Program.Name, Enabled: true, Yolo: true, Transport: transport.CLI}
		if s.ACP != nil {
			tc.ACPPath = s.ACP.Name
		}
		c.Tools[string(s.Tool)] = tc
		c.Resources.InitialEstimates[string(s.Tool)] = s.InitialEstimateMB
	}
	return c
}

// Tool returns the configuration of the tool called name, with defaults
// filled in: an empty Path becomes the tool's program name. The Env map is
// the caller's own. An unknown name gives the zero ToolConfig, which is
// not Enabled.
func (c *Config) Tool(name string) ToolConfig {
	s, ok := agents.Lookup(name)
	t, set := c.Tools[name]
	if !ok || !set {
		return ToolConfig{}
	}
	if t.Path == "" {
		t.Path = s.Program.Name
	}
	t.Env = maps.Clone(t.Env)
	return t
}

// Family is the model family of tool t as configured (that of its model,
// for a tool that drives many providers); "" when it cannot be told.
func (c *Config) Family(t agents.Tool) string {
	return agents.FamilyOf(t, c.Tool(string(t)).Model)
}

// ToolLimits is the resource control of one tool: [resources] with the
// tool's overrides applied.
func (c *Config) ToolLimits(name string) ResourcesConfig {
	r := c.Resources
	r.InitialEstimates = maps.Clone(r.InitialEstimates)
	p, ok := c.Tools[name]
	if !ok {
		return r
	}
	o := p.Resources
	if o.EnforcementMode != nil {
		r.EnforcementMode = *o.EnforcementMode
	}
	if o.Sandbox != nil {
		r.Sandbox = *o.Sandbox
	}
	if o.MemoryMaxMB != nil {
		r.MemoryMaxMB = *o.MemoryMaxMB
	}
	if o.MemorySwapMaxMB != nil {
		r.MemorySwapMaxMB = *o.MemorySwapMaxMB
	}
	if o.PidsMax != nil {
		r.PidsMax = *o.PidsMax
	}
	return r
}

// tagName returns the key of field f: its toml tag without options; "" for
// fields that are not part of the configuration.
func tagName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" {
		return ""
	}
	return name
}
