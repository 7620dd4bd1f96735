package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/csa-dev/csa/internal/csaagent/perm"
)

// options are csa-agent's flags, the same names as Claude Code's where they
// mean the same, so a caller that drives one drives the other.
type options struct {
	print bool
	// repl: the session is the REPL's, which goes on after a turn (set
	// by Run, not a flag).
	repl           bool
	outputFormat   string
	verbose        bool
	partial        bool
	model          string
	fallbackModel  string
	effort         string
	permissionMode string
	skipPerms      bool
	sessionID      string
	resume         string
	settings       string
	agents         string // --agents: Claude Code's JSON of subagents
	maxTurns       int
	allowed        []string
	disallowed     []string
	addDirs        []string
	mcpConfig      []string
	strictMCP      bool
	disabledMCP    []string
	pluginDirs     []string
	version        bool
	acp            bool
	prompt         string // the remaining arguments, joined
	cleared        bool   // a session /clear opened (SessionStart's source "clear")
}

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

var outputFormats = []string{"text", "json", "stream-json"}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	var o options
	fs := pflag.NewFlagSet("csa-agent", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: csa-agent [flags] [PROMPT]\n       csa-agent --acp | app-server | mcp-serve   (serve editors and programs on stdio)\n       csa-agent plugin ...   (Claude Code's plugin commands: marketplace, install, list, enable, disable, uninstall)\n\ncsa's own coding agent. With -p it answers PROMPT (or stdin) and exits;\nwithout, it opens a line-mode session (/help lists its commands).\nA prompt \"/name args\" runs a skill or custom command (.claude/skills, .claude/commands).\n\n%s", fs.FlagUsages())
	}
	fs.BoolVarP(&o.print, "print", "p", false, "answer the prompt and exit (headless)")
	fs.StringVar(&o.outputFormat, "output-format", "text", "text, json or stream-json (Claude Code's line format)")
	fs.BoolVar(&o.verbose, "verbose", false, "show tool calls headless")
	fs.BoolVar(&o.partial, "include-partial-messages", false, "stream-json: also write text deltas")
	fs.StringVar(&o.model, "model", "", "provider/model, or a model whose provider is inferred")
	fs.StringVar(&o.fallbackModel, "fallback-model", "", "model to switch to when the model is overloaded")
	fs.StringVar(&o.effort, "effort", "", "thinking effort: low, medium or high")
	fs.StringVar(&o.permissionMode, "permission-mode", "", "default, acceptEdits, plan or bypassPermissions")
	fs.BoolVar(&o.skipPerms, "dangerously-skip-permissions", false, "bypassPermissions: run every tool call")
	fs.StringVar(&o.sessionID, "session-id", "", "name a new session (a UUID)")
	fs.StringVarP(&o.resume, "resume", "r", "", "continue a stored session")
	fs.StringVar(&o.settings, "settings", "", "Claude Code settings (hooks, outputStyle, statusLine): a file or the JSON itself")
	fs.StringVar(&o.agents, "agents", "", "JSON object defining custom subagents, as Claude Code's --agents: '{\"reviewer\": {\"description\": \"...\", \"prompt\": \"...\"}}'")
	fs.IntVar(&o.maxTurns, "max-turns", 0, "stop after this many model requests")
	fs.StringArrayVar(&o.allowed, "allowedTools", nil, "allow rules, comma- or space-separated: \"Bash(git diff:*) Edit\"")
	fs.StringArrayVar(&o.disallowed, "disallowedTools", nil, "deny rules, as --allowedTools")
	fs.StringSliceVar(&o.addDirs, "add-dir", nil, "another directory file tools may use")
	fs.StringArrayVar(&o.mcpConfig, "mcp-config", nil, "MCP servers: a JSON file or string {\"mcpServers\": {...}} (repeatable)")
	fs.BoolVar(&o.strictMCP, "strict-mcp-config", false, "use only the --mcp-config servers")
	fs.StringArrayVar(&o.disabledMCP, "disable-mcp-server", nil, "do not start this configured MCP server (repeatable)")
	fs.StringArrayVar(&o.pluginDirs, "plugin-dir", nil, "load a Claude Code plugin from this folder for this session (repeatable)")
	fs.BoolVarP(&o.version, "version", "v", false, "print the version")
	fs.BoolVar(&o.acp, "acp", false, "speak the Agent Client Protocol on stdio (an agent for editors and csa --transport acp)")
	fs.SetInterspersed(true)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.prompt = strings.Join(fs.Args(), " ")
	o.allowed, o.disallowed = perm.SplitRules(o.allowed), perm.SplitRules(o.disallowed)
	if !contains(outputFormats, o.outputFormat) {
		return nil, fmt.Errorf("--output-format %q: want one of %s", o.outputFormat, strings.Join(outputFormats, ", "))
	}
	switch o.effort {
	case "", "low", "medium", "high":
	default:
		return nil, fmt.Errorf("--effort %q: want low, medium or high", o.effort)
	}
	if o.sessionID != "" && o.resume != "" {
		return nil, fmt.Errorf("--session-id names a new session; --resume continues one: give one of them")
	}
	if o.acp && (o.print || o.resume != "" || o.sessionID != "" || o.prompt != "") {
		return nil, fmt.Errorf("--acp takes its sessions and prompts from the protocol: give no -p, --resume, --session-id or prompt")
	}
	if o.maxTurns < 0 {
		return nil, fmt.Errorf("--max-turns must not be negative")
	}
	return &o, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
