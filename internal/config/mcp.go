package config

import (
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"
)

// MCPConfig is csa's MCP hub (csa mcp): the MCP servers every run's agent
// shares through one hub per user, instead of each agent starting its own.
type MCPConfig struct {
	// Enabled gives every run the hub when servers are configured (csa
	// run --no-mcp turns it off for one run).
	Enabled bool `toml:"enabled"`
	// IdleExit: the hub exits after this long with no clients.
	IdleExit Duration `toml:"idle_exit"`
	// Servers are the MCP servers, by name.
	Servers map[string]MCPServer `toml:"servers"`
}

// MCPServer is one MCP server behind the hub: a stdio command, or the URL
// of a streamable HTTP server.
type MCPServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Cwd     string            `toml:"cwd"`
	// URL is a streamable HTTP server (instead of Command); Headers are
	// sent with every request (for example Authorization).
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	// Scope is "shared" (one instance for every client, the default) or
	// "project" (one per project root: for stateful servers).
	Scope string `toml:"scope"`
	// Concurrency bounds the calls in flight to one instance; 0 is
	// unbounded. Further calls wait first-in first-out, at most Queue of
	// them (0: 256); beyond that a call fails at once.
	Concurrency int `toml:"concurrency"`
	Queue       int `toml:"queue"`
	// Lazy starts the server at its first tool call rather than when a
	// client first sees it (its tool list comes from an earlier start).
	Lazy bool `toml:"lazy"`
	// IdleTTL stops an instance with no call for this long; it starts
	// again when needed. "" keeps it while the hub runs.
	IdleTTL Duration `toml:"idle_ttl"`
	// MemoryMaxMB and PidsMax limit the server's processes through csa's
	// resource layers; 0 for no limit.
	MemoryMaxMB int64        `toml:"memory_max_mb"`
	PidsMax     int64        `toml:"pids_max"`
	Tools       MCPToolNames `toml:"tools"`
}

// MCPToolNames filters the tools a server shows: patterns as path.Match
// ("read_*"); Deny wins over Allow, and an empty Allow allows all.
type MCPToolNames struct {
	Allow []string `toml:"allow"`
	Deny  []string `toml:"deny"`
}

// Scopes of an MCP server.
const (
	MCPShared  = "shared"
	MCPProject = "project"
)

// ProjectVar in a project-scoped server's args, env values or cwd is
// replaced by the project root of each instance.
const ProjectVar = "{project}"

// DefaultMCPQueue is the queue of a server whose queue is 0.
const DefaultMCPQueue = 256

// validMCPName is what a server may be called: 1-32 letters, digits, '-'
// or '_', starting with a letter or digit, as its name is part of tool
// names and of other programs' configuration keys. (No regexp: compiling
// one when the package loads costs every csa run 0.1 ms.)
func validMCPName(name string) bool {
	if name == "" || len(name) > 32 || name[0] == '-' || name[0] == '_' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func defaultMCP() MCPConfig {
	return MCPConfig{Enabled: true, IdleExit: Duration(10 * time.Minute), Servers: map[string]MCPServer{}}
}

// Check reports the first problem of s as "key: detail" (key relative to
// the server's table); nil when s is usable.
func (s MCPServer) Check() error {
	if ps := s.problems(); len(ps) > 0 {
		return fmt.Errorf("%s: %s", ps[0].key, ps[0].detail)
	}
	return nil
}

type fieldProblem struct{ key, detail string }

func (s MCPServer) problems() []fieldProblem {
	var ps []fieldProblem
	bad := func(key, detail string) { ps = append(ps, fieldProblem{key, detail}) }
	switch {
	case s.Command == "" && s.URL == "":
		bad("command", `a server needs a command (stdio) or a url (streamable HTTP)`)
	case s.Command != "" && s.URL != "":
		bad("url", "a server has a command or a url, not both")
	case s.URL != "":
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("url", fmt.Sprintf("%q is not an http(s) URL", s.URL))
		}
		if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" || s.MemoryMaxMB != 0 || s.PidsMax != 0 {
			bad("url", "args, env, cwd, memory_max_mb and pids_max are for command servers")
		}
	case len(s.Headers) > 0:
		bad("headers", "headers are for url servers")
	}
	switch s.Scope {
	case "", MCPShared, MCPProject:
	default:
		bad("scope", fmt.Sprintf("%q is not one of shared, project", s.Scope))
	}
	if s.Scope != MCPProject {
		uses := strings.Contains(s.Cwd, ProjectVar)
		for _, a := range s.Args {
			uses = uses || strings.Contains(a, ProjectVar)
		}
		for _, v := range s.Env {
			uses = uses || strings.Contains(v, ProjectVar)
		}
		if uses {
			bad("scope", ProjectVar+` in args, env or cwd needs scope = "project" (one instance per project root)`)
		}
	}
	if s.Concurrency < 0 {
		bad("concurrency", fmt.Sprintf("%d cannot be negative (0 for no bound)", s.Concurrency))
	}
	if s.Queue < 0 {
		bad("queue", fmt.Sprintf("%d cannot be negative (0 for %d)", s.Queue, DefaultMCPQueue))
	}
	if s.MemoryMaxMB < 0 {
		bad("memory_max_mb", fmt.Sprintf("%d cannot be negative (0 for none)", s.MemoryMaxMB))
	}
	if s.PidsMax < 0 {
		bad("pids_max", fmt.Sprintf("%d cannot be negative (0 for none)", s.PidsMax))
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			bad("env", fmt.Sprintf("%q is not a valid environment variable name", k))
		}
	}
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"tools.allow", s.Tools.Allow}, {"tools.deny", s.Tools.Deny}} {
		for _, p := range list.patterns {
			if _, err := path.Match(p, ""); err != nil {
				bad(list.key, fmt.Sprintf("pattern %q: %v", p, err))
			}
		}
	}
	return ps
}

// QueueMax is the longest queue of calls waiting for the server.
func (s MCPServer) QueueMax() int {
	if s.Queue == 0 {
		return DefaultMCPQueue
	}
	return s.Queue
}

// Exposes reports whether tool passes the server's allow and deny lists.
func (s MCPServer) Exposes(tool string) bool {
	for _, p := range s.Tools.Deny {
		if ok, _ := path.Match(p, tool); ok {
			return false
		}
	}
	if len(s.Tools.Allow) == 0 {
		return true
	}
	for _, p := range s.Tools.Allow {
		if ok, _ := path.Match(p, tool); ok {
			return true
		}
	}
	return false
}

func (c *Config) validateMCP() []problem {
	var ps []problem
	for name, s := range c.MCP.Servers {
		if !validMCPName(name) {
			ps = append(ps, problem{KindValue, []string{"mcp", "servers", name},
				"a server's name is 1-32 letters, digits, '-' or '_', starting with a letter or digit"})
		}
		for _, p := range s.problems() {
			ps = append(ps, problem{KindValue, append([]string{"mcp", "servers", name}, strings.Split(p.key, ".")...), p.detail})
		}
	}
	return ps
}
