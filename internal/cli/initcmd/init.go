// Package initcmd implements `csa init`: write a commented project config.
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
		Short: "Write a commented .csa/config.toml at the project root",
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
			if f.JSON {
				return f.IO.PrintJSON(map[string]string{"path": path, "project_root": root})
			}
			fmt.Fprintf(f.IO.Out, "wrote %s\n", path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing project config")
	return cmd
}
