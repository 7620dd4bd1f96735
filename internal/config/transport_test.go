package config

import (
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/transport"
)

func TestTransportDefaults(t *testing.T) {
	c := Default()
	for name, tc := range c.Tools {
		if tc.Transport != transport.CLI {
			t.Errorf("%s: transport %q", name, tc.Transport)
		}
	}
	if c.Tool("claude-code").ACPPath != "claude-code-acp" || c.Tool("codex").ACPPath != "codex-acp" || c.Tool("gemini-cli").ACPPath != "" {
		t.Errorf("ACP agents: %+v", c.Tools)
	}
}

func TestTransportValidation(t *testing.T) {
	l := mustLoad(t, "", "[tools.codex]\ntransport = \"acp\"\nacp_path = \"/opt/codex-acp\"\n[tools.claude-code]\ntransport = \"auto\"\n")
	if tc := l.Config.Tool("codex"); tc.Transport != transport.ACP || tc.ACPPath != "/opt/codex-acp" {
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
