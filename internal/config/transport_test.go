package config

import (
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/transport"
)

func TestTransportDefaults(t *testing.T) {
	c := Default()
	for _, tool := range Tools() {
		tc := c.Tool(tool.Name)
		if tc.Transport != transport.CLI || tc.ACPPath != tool.ACPProgram {
			t.Errorf("%s: transport %q, acp_path %q", tool.Name, tc.Transport, tc.ACPPath)
		}
	}
	if c.Tool(ToolClaudeCode).ACPPath != "claude-code-acp" || c.Tool(ToolCodex).ACPPath != "codex-acp" {
		t.Errorf("ACP agents: %+v", c.Tools)
	}
}

func TestTransportValidation(t *testing.T) {
	l := mustLoad(t, "", "[tools.codex]\ntransport = \"acp\"\nacp_path = \"/opt/codex-acp\"\n[tools.claude-code]\ntransport = \"auto\"\n")
	if tc := l.Config.Tool(ToolCodex); tc.Transport != transport.ACP || tc.ACPPath != "/opt/codex-acp" {
		t.Errorf("codex: %+v", tc)
	}
	for doc, want := range map[string]string{
		"[tools.codex]\ntransport = \"tcp\"\n":                  `"tcp" is not one of cli, acp, auto`,
		"[tools.gemini-cli]\ntransport = \"acp\"\n":             "gemini-cli has no ACP agent",
		"[tools.codex]\ntransport = \"acp\"\nacp_path = \"\"\n": "codex has no ACP agent",
	} {
		g, p := files(t, "", doc)
		_, err := LoadFiles(g, p)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "transport") {
			t.Errorf("%q: got %v, want %q", doc, err, want)
		}
	}
}
