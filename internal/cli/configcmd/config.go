// Package configcmd implements `csa config show|get|validate`.
package configcmd

import (
	"fmt"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
)

// NewCmd builds `csa config` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show, query and validate the merged configuration",
		Args:  cobra.NoArgs,
	}
	load := func() (*config.Loaded, error) {
		l, _, err := f.CwdConfig()
		return l, err
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration (defaults, global file, project file merged)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, err := load()
			if err != nil {
				return err
			}
			if f.JSON {
				return f.IO.PrintJSON(map[string]any{"config": l.Map(), "sources": cmdutil.ConfigSources(l)})
			}
			for _, s := range l.Sources {
				fmt.Fprintf(f.IO.Out, "# %s: %s%s\n", s.Scope, s.Path, map[bool]string{true: "", false: " (not present)"}[s.Exists])
			}
			b, err := toml.Marshal(l.Map())
			if err != nil {
				return err
			}
			_, err = f.IO.Out.Write(b)
			return err
		},
	}, &cobra.Command{
		Use:   "get KEY",
		Short: "Print one effective value by dotted key (e.g. tools.codex.path)",
		Args:  cmdutil.ExactArgs(1, "a dotted key, such as tools.codex.path (see `csa config show`)"),
		RunE: func(_ *cobra.Command, args []string) error {
			l, err := load()
			if err != nil {
				return err
			}
			v, err := l.Get(args[0])
			if err != nil {
				return cmdutil.Usagef("%v", err)
			}
			if f.JSON {
				return f.IO.PrintJSON(map[string]any{"key": args[0], "value": v})
			}
			switch v.(type) {
			case map[string]any:
				b, err := toml.Marshal(v)
				if err != nil {
					return err
				}
				_, err = f.IO.Out.Write(b)
				return err
			}
			fmt.Fprintln(f.IO.Out, v)
			return nil
		},
	}, &cobra.Command{
		Use:   "validate",
		Short: "Check the configuration and hooks files; errors name the file, line and key",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, root, err := f.CwdConfig()
			if err != nil {
				return err
			}
			if _, err := f.Hooks(root); err != nil {
				return err
			}
			hooks := cmdutil.HooksSources(root)
			if f.JSON {
				return f.IO.PrintJSON(map[string]any{"valid": true, "sources": cmdutil.ConfigSources(l), "hooks_sources": hooks})
			}
			for _, s := range append(cmdutil.ConfigSources(l), hooks...) {
				if s.Exists {
					fmt.Fprintf(f.IO.Out, "%s: ok\n", s.Path)
				}
			}
			fmt.Fprintln(f.IO.Out, "configuration is valid")
			return nil
		},
	})
	return cmd
}
