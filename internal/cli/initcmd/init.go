// Package initcmd implements `csa init`: write a commented project config
// and hooks file.
package initcmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/fsutil"
)

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [--force]",
		Short: "Write a commented .csa/config.toml (and .csa/hooks.toml) at the project root",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			root, err := f.ProjectRoot(".")
			if err != nil {
				return err
			}
			path := config.ProjectPath(root)
			if _, err := os.Stat(path); err == nil && !force {
				// A usage error (exit 2), not a refusal to start something.
				return &cmdutil.Error{Code: "exists", Exit: cmdutil.ExitUsage, Err: fmt.Errorf("%s already exists (use --force to overwrite)", path)}
			} else if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := fsutil.WriteFileAtomic(path, []byte(config.Template())); err != nil {
				return err
			}
			if err := os.Chmod(path, 0o644); err != nil {
				return err
			}
			hooks, wrote, err := writeHooks(root)
			if err != nil {
				return err
			}
			if f.JSON {
				return f.IO.PrintJSON(map[string]any{"path": path, "project_root": root, "hooks_path": hooks, "hooks_written": wrote})
			}
			fmt.Fprintf(f.IO.Out, "wrote %s\n", path)
			if wrote {
				fmt.Fprintf(f.IO.Out, "wrote %s\n", hooks)
			} else {
				fmt.Fprintf(f.IO.Out, "kept %s (it exists)\n", hooks)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing project config (an existing hooks.toml is always kept)")
	return cmd
}

// writeHooks writes the commented hooks file beside the project config,
// unless one exists: it holds the user's commands, which --force does not
// take away. It reports the path and whether it wrote it.
func writeHooks(root string) (string, bool, error) {
	path := config.HooksProjectPath(root)
	if _, err := os.Stat(path); err == nil {
		return path, false, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", false, err
	}
	if err := fsutil.WriteFileAtomic(path, []byte(config.HooksTemplate())); err != nil {
		return "", false, err
	}
	return path, true, os.Chmod(path, 0o644)
}
