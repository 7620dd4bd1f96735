package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/workspace"
)

// Template returns a project configuration file for `csa init`: every key
// commented out with its default value and a one-line explanation, so that
// the file changes nothing until a line is uncommented. It loads without
// error, and so does the file with every setting uncommented.
func Template() string {
	def := (&Loaded{Config: Default()}).Map()
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	set := func(key, help string) {
		if help != "" {
			line("# " + help)
		}
		v, _ := lookup(def, strings.Split(key, "."))
		line("# " + key[strings.LastIndexByte(key, '.')+1:] + " = " + tomlValue(v))
	}

	line("# csa project configuration (.csa/config.toml).")
	line("#")
	line("# Settings here override the global file (~/.config/csa/config.toml):")
	line("# tables merge key by key, arrays are replaced whole. Every setting below")
	line("# is commented out and shows its default; uncomment a line to change it.")
	line("# Hooks and prompt guards (commands run around each run) are in hooks.toml")
	line("# beside this file; csa init writes a commented one.")
	line("")
	set("max_recursion_depth", fmt.Sprintf("How deep csa runs may nest when agents start csa (%d-%d).", MinRecursionDepth, MaxRecursionDepth))
	line("# Tiers: named lists of model specs \"tool/provider/model/thinking\" for csa run --tier NAME,")
	line("# as tables, for example:")
	line("#   [tiers.review]")
	line("#   models = [\"codex/openai/gpt-5/high\", \"claude-code/anthropic/sonnet\"]")
	line("#   strategy = \"priority\"   # or \"round-robin\"")
	line("#   fallback = []           # other tiers to try when all of these are rate limited")
	set("tiers", "")
	set("aliases", `Names for model specs, e.g. { fast = "codex/openai/gpt-5/low" }.`)
	line("# Prices: USD per million tokens by model name, over csa's built-in table (csa usage), e.g.")
	line("#   [prices.\"claude-sonnet-4-5\"]")
	line("#   input = 3.0")
	line("#   output = 15.0")
	line("#   cache_read = 0.3    # left out: the input price")
	line("#   cache_write = 3.75  # left out: the input price")
	set("prices", "")
	line("")
	line("[defaults]")
	set("defaults.tool", `Tool for "csa run" without --tool: `+toolNames()+`; "" for none.`)
	set("defaults.timeout", `Limit on a run's total time, e.g. "30m"; "" for none.`)
	set("defaults.idle_timeout", `Limit on a run's time without output, e.g. "5m"; "" for none.`)
	set("defaults.kill_grace", "Time between SIGTERM and SIGKILL when a run is stopped (Ctrl-C, a timeout, csa kill without --grace).")
	set("defaults.worktree", "Run each agent in a git worktree of its own on a branch csa/ID (csa run --worktree); a run started inside another's worktree works in it.")
	set("defaults.worktree_branch", "Name of a worktree run's branch, with "+workspace.Placeholders()+" (the session id's first ten characters, the tool, the day as YYYYMMDD); a name taken gets the whole id.")
	set("defaults.worktree_submodules", "Check out the repository's submodules in a worktree run's worktree (csa run --worktree-submodules); by default none are.")
	for i, s := range agents.Registry {
		name := string(s.Tool)
		line("")
		line("[tools." + name + "]")
		help := func(s string) string {
			if i > 0 {
				return ""
			}
			return s
		}
		k := "tools." + name + "."
		set(k+"path", help("Program to run: a path, or a name looked up on PATH (then, for the default name, in csa's cache of pinned programs: csa tools install; csa-agent, built with csa, is looked for beside csa's executable first)."))
		set(k+"enabled", help("Whether csa may run this tool."))
		set(k+"model", help(`Model to ask for; "" for the tool's own default.`))
		set(k+"effort", help(`Thinking or reasoning effort (e.g. "low", "high"); "" for the tool's own default.`))
		set(k+"yolo", help("Let the agent act without asking for approval (headless runs need it)."))
		set(k+"max_concurrent", help("How many runs of this tool may run at once on this machine; 0 for no bound."))
		set(k+"resources", help(`Overrides of [resources] for this tool, e.g. { memory_max_mb = 3072, enforcement_mode = "Required" }.`))
		set(k+"env", help(`Extra environment variables for the program, e.g. { FOO = "bar" }.`))
		set(k+"transport", help(`How csa drives the tool: "cli" (its structured output), "acp" (the Agent Client Protocol, claude-code and codex) or "auto" (acp when acp_path is installed).`))
		set(k+"acp_path", help(`The tool's ACP agent program (claude-code-acp, codex-acp); "" for none.`))
		set(k+"isolate", help(`What to confine for this tool's runs: "fs", "fs,net" (net is not enforced yet) or "none"; "" follows [sandbox] fs.`))
		set(k+"worktree", help("Run this tool's runs in a git worktree of their own, as defaults.worktree does every run's."))
		set(k+"worktree_branch", help(`Name of this tool's worktree runs' branches, over defaults.worktree_branch; "" for that one.`))
		set(k+"worktree_submodules", help("Check out the submodules in this tool's worktree runs, as defaults.worktree_submodules does in every one."))
	}
	line("")
	line("[interactive]")
	set("interactive.grace", "A session this young, with no clearer signal, is just_started.")
	set("interactive.quiet", "Output and CPU quiet this long end a turn of an agent without turn hooks (gemini-cli, opencode).")
	set("interactive.stuck_after", "An input with no output, CPU or turn event for this long makes the session stuck.")
	set("interactive.width", "Width of the tmux pane, in columns.")
	set("interactive.height", "Height of the tmux pane, in lines.")
	line("")
	line("[gc]")
	set("gc.max_age_days", `Age in days after which "csa gc" removes a session.`)
	line("")
	line("[output]")
	set("output.max_log_bytes", "Cap on the recorded output log of one session, in bytes (1 GiB).")
	line("")
	line("[resources]")
	set("resources.enforcement_mode", "Required (refuse without the preferred sandbox layer, or with no limit set), BestEffort (best available, warn once) or Off.")
	set("resources.sandbox", "Preferred layer: auto, systemd, cgroup2, cgroup1, setrlimit or none.")
	set("resources.memory_max_mb", "Memory limit of one run in MB; 0 for none.")
	set("resources.memory_swap_max_mb", "Swap limit of one run in MB (cgroup layers only); 0 for none.")
	set("resources.pids_max", "Process limit of one run; 0 for none.")
	set("resources.min_free_memory_mb", "Memory to keep free on top of a tool's estimated need before starting it.")
	set("resources.sample_interval", "How often memory is sampled where no cgroup records the peak.")
	line("")
	line("[sandbox]")
	set("sandbox.fs", "Confine every headless run's files with Landlock: read everywhere but deny_read, write only the working directory, the temp dir, csa's state and the tool's own state (csa run --isolate).")
	set("sandbox.mode", "required (refuse to start where the kernel has no Landlock, exit 3) or best-effort (run, and record what was not enforced).")
	set("sandbox.deny_read", "Paths no run may read, on top of ~/.ssh, ~/.gnupg, ~/.aws, ~/.config/gh, ~/.netrc and the other tools' credentials.")
	set("sandbox.allow_write", "Paths every confined run may also write.")
	set("sandbox.net", "Confine every headless run's network: connect only through csa's egress proxy (to the tool's model endpoints, its API hosts and allow_hosts) and to its model servers on loopback (csa run --isolate).")
	set("sandbox.allow_hosts", "More hosts a confined network may reach: host, *.domain, an IP address, each with an optional :port.")
	line("")
	line("[resources.initial_estimates]")
	line("# Memory (MB) a tool is assumed to need until it has a history of its own.")
	for _, s := range agents.Registry {
		set("resources.initial_estimates."+string(s.Tool), "")
	}
	line("")
	line("[failover]")
	set("failover.retries", "Retries of a transient 429 on the same model (exponential backoff) before failing over.")
	set("failover.backoff", "Delay before the first retry; it doubles each time.")
	set("failover.cooldown", "How long a rate-limited provider is skipped by every csa process (unless it says when to retry).")
	set("failover.agent_retries", "Fail over once the agent itself has retried a rate limit this many times in a row (0: wait for it to give up).")
	line("")
	line("[mcp]")
	set("mcp.enabled", "Give every run the MCP hub (csa mcp) when servers are configured; csa run --no-mcp turns it off for one run.")
	set("mcp.idle_exit", "The hub exits after this long with no clients; the next run that needs it starts it again. A project-scoped server without idle_ttl stops after this long with no client of its project.")
	line("# MCP servers shared by every agent through the hub, as tables, for example:")
	line("#   [mcp.servers.memory]")
	line("#   command = \"npx\"")
	line("#   args = [\"-y\", \"@modelcontextprotocol/server-memory\"]")
	line("#   env = {}                  # extra environment of the server")
	line("#   cwd = \"\"                  # working directory (default: the hub's)")
	line("#   scope = \"project\"         # \"shared\" (one for all) or \"project\" (one per project root;")
	line("#                             # {project} in args, env and cwd is then the instance's project root)")
	line("#   concurrency = 1           # calls in flight at once (0: unbounded); more wait first-in first-out")
	line("#   queue = 256               # most calls waiting; beyond that a call fails at once")
	line("#   lazy = false              # start at the first tool call rather than when a client connects")
	line("#   idle_ttl = \"\"             # stop after this long without a call, e.g. \"10m\"")
	line("#   memory_max_mb = 0         # memory limit of the server (csa's resource layers); 0 for none")
	line("#   pids_max = 0              # process limit of the server; 0 for none")
	line("#   tools = { allow = [], deny = [] }   # tool-name patterns such as \"read_*\"; deny wins")
	line("# or a streamable HTTP server: url = \"https://host/mcp\", headers = { Authorization = \"Bearer ...\" }")
	set("mcp.servers", "")
	line("")
	line("[cluster]")
	set("cluster.url", `NATS servers of a JetStream cluster for csa run --remote and csa worker, e.g. "nats://a:4222,nats://b:4222"; "" for none (csa cluster dev starts one here).`)
	set("cluster.credentials", `A NATS credentials file (absolute path); "" for none.`)
	set("cluster.tls_ca", `CA certificate that signs the servers' certificates (absolute path); "" for the system's.`)
	set("cluster.tls_cert", `Client certificate for servers that ask for one (absolute path, with tls_key).`)
	set("cluster.tls_key", `The client certificate's key (absolute path).`)
	set("cluster.remote", `A git remote every worker can fetch from (URL, user@host:path or absolute path): csa run --remote sends HEAD by its commit id, which must be pushed there already, instead of a bundle of its history; "" for bundles.`)
	set("cluster.default", `Where csa run runs without --remote: "local" (here) or "remote" (queued for a worker; needs url).`)
	line("")
	line("[review]")
	set("review.reviewers", "How many reviewers csa review asks (1-8).")
	set("review.consensus", "majority, unanimous or weighted.")
	set("review.weights", `Weights for weighted consensus by tool or tool/model, e.g. { codex = 2.0 }.`)
	return b.String()
}

// tomlValue formats a value of Map as a TOML value.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case map[string]any:
		if len(v) == 0 {
			return "{}"
		}
	}
	return fmt.Sprint(v)
}
