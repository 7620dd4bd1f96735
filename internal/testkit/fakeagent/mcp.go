package fakeagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCall is the mcp directive, "mcp TOOL {JSON arguments}": as a real
// agent's tool call, it calls TOOL of the MCP server "csa" csa gave the run
// (Claude Code's --mcp-config: csa's hub bridge) and says the text of the
// result; an error result fails the run.
func mcpCall(out emitter, arg string) (int, bool) {
	name, rawArgs, _ := strings.Cut(arg, " ")
	fail := func(err error) (int, bool) {
		out.fail(fmt.Sprintf("fakeagent: mcp %s: %v", name, err))
		return 1, true
	}
	args := map[string]any{}
	if strings.TrimSpace(rawArgs) != "" {
		if err := json.Unmarshal([]byte(rawArgs), &args); err != nil {
			return fail(err)
		}
	}
	server, err := csaServer(os.Args[1:])
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(server.Command, server.Args...)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakeagent", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return fail(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fail(err)
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	if res.IsError {
		return fail(errors.New(strings.Join(text, "\n")))
	}
	for _, t := range text {
		out.text(t)
	}
	return 0, false
}

type stdioServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// csaServer is the server "csa" of the --mcp-config in argv.
func csaServer(argv []string) (stdioServer, error) {
	for i, a := range argv {
		if a != "--mcp-config" || i+1 >= len(argv) {
			continue
		}
		var c struct {
			MCPServers map[string]stdioServer `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(argv[i+1]), &c); err != nil {
			return stdioServer{}, fmt.Errorf("--mcp-config: %w", err)
		}
		if s, ok := c.MCPServers["csa"]; ok {
			return s, nil
		}
	}
	return stdioServer{}, errors.New("no MCP server csa in --mcp-config: the run was given none")
}
