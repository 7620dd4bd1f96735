package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// pluginCommand is `csa-agent plugin ...`: Claude Code's plugin commands,
// writing its files so the two programs share one installation.
func pluginCommand(ctx context.Context, args []string, sio IO) int {
	l := plugin.Layout{Home: sio.Getenv("HOME"), ProjectRoot: sio.Cwd} // Claude Code's project: where it runs
	root := &cobra.Command{Use: "plugin", Short: "Manage Claude Code plugins (in Claude Code's files)",
		SilenceUsage: true, SilenceErrors: true}
	root.SetArgs(args)
	root.SetOut(sio.Stdout)
	root.SetErr(sio.Stderr)
	root.SetContext(ctx)
	root.AddCommand(marketplaceCommand(l), installCommand(l), listCommand(l),
		enableCommand(l, true), enableCommand(l, false), uninstallCommand(l))
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(sio.Stderr, "csa-agent plugin:", err)
	// Bad input (an unknown marketplace or plugin, a bad manifest, a
	// missing folder) and cobra's own errors (an unknown command or flag)
	// are usage errors; the rest failed.
	var r runtimeError
	if errors.As(err, &r) {
		return exitFailed
	}
	return exitUsage
}

// runtimeError is a failure that is not the input's fault (a file that
// cannot be written, git failing).
type runtimeError struct{ error }

func (r runtimeError) Unwrap() error { return r.error }

// failed wraps err unless it is an InputError.
func failed(err error) error {
	var in *plugin.InputError
	if err == nil || errors.As(err, &in) {
		return err
	}
	return runtimeError{err}
}

func marketplaceCommand(l plugin.Layout) *cobra.Command {
	c := &cobra.Command{Use: "marketplace", Short: "Manage Claude Code marketplaces"}
	c.AddCommand(&cobra.Command{Use: "add SOURCE", Short: "Add a marketplace from a folder, a git URL or a GitHub owner/repo",
		Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			m, err := l.AddMarketplace(cmd.Context(), args[0])
			if err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Successfully added marketplace: %s (declared in user settings)\n", m.Name)
			return nil
		}})
	var asJSON bool
	list := &cobra.Command{Use: "list", Short: "List the configured marketplaces", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := l.Marketplaces()
			if err != nil {
				return failed(err)
			}
			return printMarketplaces(cmd, all, asJSON)
		}}
	list.Flags().BoolVar(&asJSON, "json", false, "output as JSON")
	c.AddCommand(list)
	c.AddCommand(&cobra.Command{Use: "remove NAME", Aliases: []string{"rm"}, Short: "Remove a marketplace and uninstall its plugins",
		Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			if err := l.RemoveMarketplace(args[0]); err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Successfully removed marketplace: %s\n", args[0])
			return nil
		}})
	c.AddCommand(&cobra.Command{Use: "update [NAME]", Short: "Update marketplaces from their source (all when no name is given)",
		Args: cobra.MaximumNArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			done, err := l.UpdateMarketplaces(cmd.Context(), args...)
			if err != nil {
				return failed(err)
			}
			for _, m := range done {
				fmt.Fprintf(cmd.OutOrStdout(), "Successfully updated marketplace: %s\n", m.Name)
			}
			return nil
		}})
	return c
}

func printMarketplaces(cmd *cobra.Command, all []plugin.Marketplace, asJSON bool) error {
	out := cmd.OutOrStdout()
	if asJSON {
		rows := make([]map[string]string, 0, len(all))
		for _, m := range all {
			row := map[string]string{"name": m.Name, "source": m.Source.Source, "installLocation": m.InstallLocation}
			for k, v := range map[string]string{"path": m.Source.Path, "url": m.Source.URL, "repo": m.Source.Repo, "ref": m.Source.Ref} {
				if v != "" {
					row[k] = v
				}
			}
			rows = append(rows, row)
		}
		return printJSON(cmd, rows)
	}
	if len(all) == 0 {
		fmt.Fprintln(out, "No marketplaces configured")
		return nil
	}
	fmt.Fprintln(out, "Configured marketplaces:")
	for _, m := range all {
		fmt.Fprintf(out, "\n  ❯ %s\n    Source: %s\n", m.Name, plugin.Describe(m.Source))
	}
	return nil
}

func scopeFlag(c *cobra.Command, scope *string, def string) {
	c.Flags().StringVarP(scope, "scope", "s", def, "scope: user, project or local")
}

func installCommand(l plugin.Layout) *cobra.Command {
	var scope string
	c := &cobra.Command{Use: "install NAME@MARKETPLACE", Aliases: []string{"i"}, Short: "Install a plugin from a marketplace",
		Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := l.Install(cmd.Context(), args[0], scope); err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Successfully installed plugin: %s (scope: %s)\n", args[0], scope)
			return nil
		}}
	scopeFlag(c, &scope, "user")
	return c
}

func uninstallCommand(l plugin.Layout) *cobra.Command {
	var scope string
	c := &cobra.Command{Use: "uninstall NAME@MARKETPLACE", Aliases: []string{"remove"}, Short: "Uninstall a plugin",
		Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			if err := l.Uninstall(args[0], scope); err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Successfully uninstalled plugin: %s (scope: %s)\n", args[0], scope)
			return nil
		}}
	scopeFlag(c, &scope, "user")
	return c
}

func enableCommand(l plugin.Layout, on bool) *cobra.Command {
	var scope string
	verb := map[bool]string{true: "enable", false: "disable"}[on]
	c := &cobra.Command{Use: verb + " NAME@MARKETPLACE", Short: verb + " an installed plugin",
		Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			at, err := l.SetEnabled(args[0], scope, on)
			if err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Successfully %sd plugin: %s (scope: %s)\n", verb, args[0], at)
			return nil
		}}
	c.Flags().StringVarP(&scope, "scope", "s", "", "scope: user, project or local (default: where it is installed)")
	return c
}

func listCommand(l plugin.Layout) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{Use: "list", Short: "List installed plugins", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := l.List()
			if err != nil {
				return failed(err)
			}
			if asJSON {
				type row struct { // Claude Code's fields, in its order
					ID          string `json:"id"`
					Version     string `json:"version"`
					Scope       string `json:"scope"`
					Enabled     bool   `json:"enabled"`
					InstallPath string `json:"installPath"`
					InstalledAt string `json:"installedAt,omitempty"`
					LastUpdated string `json:"lastUpdated,omitempty"`
					ProjectPath string `json:"projectPath,omitempty"`
				}
				rows := make([]row, 0, len(all))
				for _, p := range all {
					rows = append(rows, row{p.ID, cmp.Or(p.Version, "unknown"), p.Scope, p.Enabled, p.InstallPath,
						p.InstalledAt, p.LastUpdated, p.ProjectPath})
				}
				return printJSON(cmd, rows)
			}
			out := cmd.OutOrStdout()
			if len(all) == 0 {
				fmt.Fprintln(out, "No plugins installed")
				return nil
			}
			fmt.Fprintln(out, "Installed plugins:")
			for _, p := range all {
				status := map[bool]string{true: "✔ enabled", false: "✘ disabled"}[p.Enabled]
				fmt.Fprintf(out, "\n  ❯ %s\n    Version: %s\n    Scope: %s\n    Status: %s\n", p.ID, p.Version, p.Scope, status)
			}
			return nil
		}}
	c.Flags().BoolVar(&asJSON, "json", false, "output as JSON")
	return c
}

func printJSON(cmd *cobra.Command, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), string(b))
	return nil
}
