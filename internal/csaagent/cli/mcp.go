package cli

import (
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/config"
	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/mcp"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
	"github.com/csa-dev/csa/internal/csaagent/prompt"
)

// loadMCP reads the MCP servers configured for the session; a bad
// --mcp-config is the caller's error, a broken file only a warning.
func loadMCP(o *options, cfg *config.Config, sio IO, plugins []plugin.Plugin) ([]mcp.Server, error) {
	servers, warnings, err := mcp.Load(mcp.Sources{Home: sio.Getenv("HOME"), Cwd: sio.Cwd,
		ProjectRoot: prompt.ProjectRoot(sio.Cwd), ManagedPath: mcp.ManagedPath, Flags: o.mcpConfig,
		Strict: o.strictMCP, Config: cfg, Disabled: o.disabledMCP, Getenv: sio.Getenv, Plugins: plugins})
	for _, w := range warnings {
		fmt.Fprintln(sio.Stderr, "csa-agent: MCP configuration:", w)
	}
	return servers, err
}

// startMCP connects to the servers; one that fails is reported and left
// out, the session goes on.
func startMCP(servers []mcp.Server, sio IO) (*mcp.Manager, []event.MCPServer) {
	m := mcp.Start(servers, mcp.Options{Cwd: sio.Cwd, Getenv: sio.Getenv, Version: Version})
	var statuses []event.MCPServer
	for _, st := range m.Statuses() {
		if st.Status == mcp.StatusFailed {
			fmt.Fprintf(sio.Stderr, "csa-agent: MCP server %s failed to start: %s\n", st.Name, st.Error)
		}
		statuses = append(statuses, event.MCPServer{Name: st.Name, Status: st.Status, Error: st.Error})
	}
	return m, statuses
}
