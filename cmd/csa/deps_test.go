package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// csaAgentOnly are the packages of csa's programs beside it: csa-agent's
// provider clients and agent loop, csa-mcp's MCP server, hub and the MCP SDK,
// csa-ui's views and their toolkit (bubbletea, lipgloss, bubbles), and
// net/http, which they pull in. csa runs those programs and must link
// none of them: csa starts on every run, and what it links it pays for at
// each start.
var csaAgentOnly = []string{
	"github.com/csa-dev/csa/internal/csaagent/llm",
	"github.com/csa-dev/csa/internal/csaagent",
	"github.com/csa-dev/csa/internal/mcp/server",
	"github.com/csa-dev/csa/internal/mcp/hub",
	"github.com/modelcontextprotocol/go-sdk",
	"github.com/csa-dev/csa/internal/ui/fleet",
	"github.com/csa-dev/csa/internal/ui/tui",
	"github.com/csa-dev/csa/internal/ui/web",
	"charm.land",
	"github.com/charmbracelet",
	"net/http",
	// csa-cluster's: the NATS client and server (issue 16 measured what
	// linking the client costs csa's start).
	"github.com/csa-dev/csa/internal/cluster",
	"github.com/nats-io",
	// cmd/gen-docs's: the reference generator and its man page renderer.
	"github.com/spf13/cobra/doc",
	"github.com/cpuguy83/go-md2man",
	"github.com/russross/blackfriday",
	// csa-agent's front matter parser.
	"go.yaml.in/yaml",
}

// TestCSALinksNoAgentCode: `go list -deps ./cmd/csa` holds none of
// csa-agent's packages (internal/agents, the adapters, is csa's own).
func TestCSALinksNoAgentCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "./cmd/csa")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/csa: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || !slices.Contains(deps, "github.com/csa-dev/csa/internal/agents") {
		t.Fatalf("go list -deps ./cmd/csa does not list csa's adapters:\n%s", out)
	}
	for _, d := range deps {
		for _, p := range csaAgentOnly {
			if d == p || strings.HasPrefix(d, p+"/") {
				t.Errorf("csa links %s, code of csa's separate programs (%s)", d, p)
			}
		}
	}
}
