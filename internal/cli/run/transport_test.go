package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/transport"
)

func TestACPProgram(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "codex-acp")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing-acp")
	for _, tc := range []struct {
		name, flag, setting, acpPath string
		want                         string // program, or "" for the CLI
		exit                         int    // exit status of the error, 0 for none
	}{
		{"default is the CLI", "", transport.CLI, agent, "", 0},
		{"setting acp", "", transport.ACP, agent, agent, 0},
		{"flag over setting", transport.CLI, transport.ACP, agent, "", 0},
		{"flag acp", transport.ACP, transport.CLI, agent, agent, 0},
		{"auto with the agent installed", transport.Auto, "", agent, agent, 0},
		{"auto without it", transport.Auto, "", missing, "", 0},
		{"auto for a tool with none", transport.Auto, "", "", "", 0},
		{"acp not installed", transport.ACP, "", missing, "", cmdutil.ExitRefused},
		{"acp for a tool with none", transport.ACP, "", "", "", cmdutil.ExitUsage},
		{"unknown transport", "tcp", "", agent, "", cmdutil.ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{Transport: tc.flag}
			got, err := o.acpProgram("codex", config.ToolConfig{Transport: tc.setting, ACPPath: tc.acpPath})
			var ce *cmdutil.Error
			switch {
			case tc.exit != 0:
				if !errors.As(err, &ce) || ce.Exit != tc.exit {
					t.Fatalf("got %q, %v; want exit %d", got, err, tc.exit)
				}
			case err != nil || got != tc.want:
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The registry's arguments go with the ACP agent that runs: csa-agent
// speaks ACP with --acp; the npm agents need none; the CLI gets none.
func TestACPArgs(t *testing.T) {
	for _, tc := range []struct {
		tool, program, want string
	}{
		{"csa-agent", "/bin/csa-agent", "--acp"},
		{"csa-agent", "", ""},
		{"claude-code", "/bin/claude-code-acp", ""},
		{"gemini-cli", "/bin/x", ""},
	} {
		if got := strings.Join(acpArgs(tc.tool, tc.program), " "); got != tc.want {
			t.Errorf("acpArgs(%q, %q) = %q, want %q", tc.tool, tc.program, got, tc.want)
		}
	}
}
