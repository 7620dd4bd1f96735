package run

import (
	"context"
	"fmt"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/mcp/link"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/runner"
)

// hubProgram is csa's MCP program, built and installed beside csa.
const hubProgram = "csa-mcp"

// hubGrant is what the job decided once about csa's MCP hub: the bridge
// every run of the job is given, or why it has none.
type hubGrant struct {
	server  *agents.MCPServer
	warning string
}

// giveMCP gives req csa's MCP hub, as the one server "csa", when MCP
// servers are configured, mcp.enabled holds, --no-mcp is not given and the
// tool has an MCP client. The hub is made sure of here, by csa run (the
// supervisor, outside the run's cgroup), so that it outlives the run; if
// it cannot start the run goes on without MCP and records a warning: the
// hub adds tools to the agent, it is not what the run is for.
func (j *job) giveMCP(ctx context.Context, req *runner.Request) {
	if j.o.NoMCP || !j.cfg.MCP.Enabled || len(j.cfg.MCP.Servers) == 0 {
		return
	}
	if s, ok := agents.Lookup(string(req.Tool)); !ok || !s.MCPClient {
		return
	}
	if j.hub == nil {
		j.hub = j.ensureHub(ctx)
	}
	if j.hub.server != nil {
		req.MCP = []agents.MCPServer{*j.hub.server}
		return
	}
	req.MCPWarning = j.hub.warning
	fmt.Fprintln(j.f.IO.ErrOut, "csa: warning: "+j.hub.warning)
}

// ensureHub makes sure the hub answers on its socket, starting it if need
// be, and returns the bridge to it for this job's project (and the scope
// it was given).
func (j *job) ensureHub(ctx context.Context) *hubGrant {
	fail := func(err error) *hubGrant {
		return &hubGrant{warning: fmt.Sprintf("mcp: the run goes on without csa's MCP hub: %v", err)}
	}
	exe, err := proc.Sibling(hubProgram)
	if err != nil {
		return fail(err)
	}
	socket, err := link.Socket(j.f.Getenv)
	if err != nil {
		return fail(err)
	}
	if err := link.Ensure(ctx, exe, socket, j.f.Getenv); err != nil {
		return fail(err)
	}
	b := link.Bridge(exe, socket, j.root, j.o.MCPScope)
	return &hubGrant{server: &agents.MCPServer{Name: b.Name, Command: b.Command, Args: b.Args}}
}
