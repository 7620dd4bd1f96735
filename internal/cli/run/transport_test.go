package run

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
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
		{"default is the CLI", "", config.TransportCLI, agent, "", 0},
		{"setting acp", "", config.TransportACP, agent, agent, 0},
		{"flag over setting", config.TransportCLI, config.TransportACP, agent, "", 0},
		{"flag acp", config.TransportACP, config.TransportCLI, agent, agent, 0},
		{"auto with the agent installed", config.TransportAuto, "", agent, agent, 0},
		{"auto without it", config.TransportAuto, "", missing, "", 0},
		{"auto for a tool with none", config.TransportAuto, "", "", "", 0},
		{"acp not installed", config.TransportACP, "", missing, "", cmdutil.ExitRefused},
		{"acp for a tool with none", config.TransportACP, "", "", "", cmdutil.ExitUsage},
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
