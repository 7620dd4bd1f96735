package dev

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/devenv"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/shellquote"
	"github.com/csa-dev/csa/internal/toolcache"
)

func newAgentEnvCmd(f *cmdutil.Factory) *cobra.Command {
	var home, url, csaConfig string
	cmd := &cobra.Command{
		Use:   "agent-env --home DIR --url URL [--csa-config FILE]",
		Short: "Prepare a HOME in which the real agent programs talk only to a model server",
		Long: `Write into DIR what claude, codex, gemini and opencode need to run headless
against the model server at URL (settings, trust and onboarding answers, fake
keys), and print the environment to use as shell exports. With --csa-config,
also write a csa config pointing every tool at the pinned programs installed
by csa tools install.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if home == "" || url == "" {
				return cmdutil.Usagef("--home and --url are required")
			}
			abs, err := filepath.Abs(home)
			if err != nil {
				return err
			}
			cwd, _ := os.Getwd()
			env, err := devenv.Prepare(abs, url, devenv.Options{Trusted: []string{cwd}})
			if err != nil {
				return err
			}
			if csaConfig != "" {
				if err := writeConfig(csaConfig); err != nil {
					return err
				}
			}
			sort.Strings(env)
			if f.JSON {
				m := map[string]string{}
				for _, kv := range env {
					k, v, _ := strings.Cut(kv, "=")
					m[k] = v
				}
				return f.IO.PrintJSON(m)
			}
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				fmt.Fprintf(f.IO.Out, "export %s=%s\n", k, shellquote.Quote(v))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "HOME directory to prepare")
	cmd.Flags().StringVar(&url, "url", "", "base URL of the model server (http://127.0.0.1:PORT)")
	cmd.Flags().StringVar(&csaConfig, "csa-config", "", "also write a csa config.toml using the pinned programs")
	return cmd
}

func writeConfig(path string) error {
	var b strings.Builder
	for _, s := range agents.Registry {
		bin, err := toolcache.Bin(s.Program.Name)
		if err != nil {
			return cmdutil.Refused("tool_not_installed", err)
		}
		fmt.Fprintf(&b, "[tools.%s]\npath = %q\n", s.Tool, bin)
		if m := devenv.Model(s.Tool); m != "" {
			fmt.Fprintf(&b, "model = %q\n", m)
		}
	}
	if err := fsutil.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, []byte(b.String()))
}
