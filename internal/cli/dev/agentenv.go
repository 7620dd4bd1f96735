package dev

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/shellquote"
	"github.com/csa-dev/csa/internal/testkit/devenv"
	"github.com/csa-dev/csa/internal/toolcache"
)

func newAgentEnvCmd(f *cmdutil.Factory) *cobra.Command {
	var home, url, csaConfig string
	cmd := &cobra.Command{
		Use:   "agent-env --home DIR --url URL [--csa-config DIR/config.toml]",
		Short: "Prepare a HOME in which the real agent programs talk only to a model server",
		Long: `Write into DIR what claude, codex, gemini, opencode and csa-agent need to run headless
against the model server at URL (settings, trust and onboarding answers, fake
keys), and print everything to export, for eval "$(csa dev agent-env ...)":

  the agents' environment: HOME=DIR, TMPDIR, XDG_CONFIG_HOME, XDG_DATA_HOME,
  XDG_STATE_HOME, XDG_CACHE_HOME under DIR;
  csa's own directories, which would otherwise move into DIR with HOME and the
  XDG variables: CSA_STATE_DIR (the state directory in effect now),
  CSA_AGENTS_CACHE (csa's cache of agent programs) and CSA_CONFIG_HOME.

With --csa-config DIR/config.toml (the name csa reads), also write there a csa
config pointing every tool at the pinned programs installed by csa tools
install (exit 3 when one is missing) and csa-agent at the one built with csa
(left out, with a note, when there is none), and export CSA_CONFIG_HOME=DIR;
without it CSA_CONFIG_HOME keeps the global config in effect now.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if home == "" || url == "" {
				return cmdutil.Usagef("--home and --url are required")
			}
			abs, err := filepath.Abs(home)
			if err != nil {
				return err
			}
			// csa's own directories, as they are before HOME moves.
			own, err := ownDirs(f, csaConfig)
			if err != nil {
				return err
			}
			cwd, _ := os.Getwd()
			env, err := devenv.Prepare(abs, url, devenv.Options{Trusted: []string{cwd}})
			if err != nil {
				return err
			}
			if csaConfig != "" {
				if err := writeConfig(filepath.Join(own[csaenv.ConfigHome], "config.toml"), f.IO.ErrOut); err != nil {
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
				for k, v := range own {
					m[k] = v
				}
				return f.IO.PrintJSON(m)
			}
			w := f.IO.Out
			fmt.Fprintln(w, "# the agents' environment")
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				fmt.Fprintf(w, "export %s=%s\n", k, shellquote.Quote(v))
			}
			fmt.Fprintln(w, "# csa's own directories stay where they are")
			for _, k := range ownVars {
				fmt.Fprintf(w, "export %s=%s\n", k, shellquote.Quote(own[k]))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "HOME directory to prepare")
	cmd.Flags().StringVar(&url, "url", "", "base URL of the model server (http://127.0.0.1:PORT)")
	cmd.Flags().StringVar(&csaConfig, "csa-config", "", "also write this csa config (a file named config.toml) using the pinned programs, and use it")
	return cmd
}

// ownVars are csa's own variables agent-env prints, in order.
var ownVars = []string{csaenv.StateDir, csaenv.AgentsCache, csaenv.ConfigHome}

// ownDirs are csa's state directory, agent cache and config home in effect
// now (or the config home --csa-config names), which must not follow HOME
// and the XDG variables into the prepared HOME.
func ownDirs(f *cmdutil.Factory, csaConfig string) (map[string]string, error) {
	cache, err := toolcache.Dir()
	if err != nil {
		return nil, err
	}
	state, err := filepath.Abs(f.StateDir())
	if err != nil {
		return nil, err
	}
	if cache, err = filepath.Abs(cache); err != nil {
		return nil, err
	}
	cfgHome := ""
	switch {
	case csaConfig != "":
		if filepath.Base(csaConfig) != "config.toml" {
			return nil, cmdutil.Usagef("--csa-config %s: name a file called config.toml (csa reads $CSA_CONFIG_HOME/config.toml)", csaConfig)
		}
		abs, err := filepath.Abs(csaConfig)
		if err != nil {
			return nil, err
		}
		cfgHome = filepath.Dir(abs)
	case config.GlobalPath() != "":
		cfgHome = filepath.Dir(config.GlobalPath())
	default:
		return nil, cmdutil.Usagef("cannot tell where csa's global config is (no HOME): give --csa-config")
	}
	return map[string]string{csaenv.StateDir: state, csaenv.AgentsCache: cache, csaenv.ConfigHome: cfgHome}, nil
}

func writeConfig(path string, stderr io.Writer) error {
	programs := map[agents.Tool]string{}
	for _, s := range agents.Registry {
		bin, err := toolcache.Own(s.Program)
		if err != nil && s.Program.BuiltWithCSA() {
			// Not an npm program csa tools install provides: optional.
			fmt.Fprintf(stderr, "csa: %v; the config leaves %s out\n", err, s.Tool)
			continue
		}
		if err != nil {
			return cmdutil.Refused("tool_not_installed", err)
		}
		programs[s.Tool] = bin
	}
	if err := fsutil.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, []byte(devenv.CSAConfig(programs)))
}
