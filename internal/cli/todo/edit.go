package todo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/todo"
)

func newEdit(f *cmdutil.Factory) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "edit PLAN [--file FILE]",
		Short: "Edit a plan's markdown in $EDITOR (or replace it with FILE); an invalid result is refused",
		Long: `Open the plan's markdown in $VISUAL or $EDITOR (default vi). When the editor
exits, the result is checked: an invalid plan (a bad line, an unknown
dependency, a cycle, a status change not allowed) is refused with the
reason, the plan is left as it was, and the edited text is kept in a file
named in the message. --file FILE replaces the markdown with FILE's,
without an editor. A plan changed by someone else meanwhile is not
overwritten.`,
		Args: cmdutil.ExactArgs(1, "a plan (see `csa todo list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			base, err := s.Text(id)
			if err != nil {
				return classify(err)
			}
			var text []byte
			name := file
			if file != "" {
				if text, err = os.ReadFile(file); err != nil {
					return cmdutil.Usagef("--file: %v", err)
				}
			} else {
				if name, err = editCopy(cmd.Context(), f, id, base); err != nil {
					return err
				}
				if text, err = os.ReadFile(name); err != nil {
					return err
				}
				if string(text) == base {
					os.Remove(name)
					fmt.Fprintln(f.IO.ErrOut, "csa: no change")
					return nil
				}
			}
			p, err := todo.Parse(name, string(text))
			if err == nil {
				err = s.Replace(cmd.Context(), id, base, p)
			}
			if err != nil {
				if file == "" {
					err = fmt.Errorf("%w; plan %s is unchanged, your edit is kept in %s", err, id, name)
				}
				return classify(err)
			}
			if file == "" {
				os.Remove(name)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "replace the plan's markdown with this file's, without an editor")
	return cmd
}

// editCopy writes the plan to a file of its own and runs the editor on
// it in the terminal; it returns the file.
func editCopy(ctx context.Context, f *cmdutil.Factory, id, text string) (string, error) {
	dir, err := os.MkdirTemp("", "csa-todo-")
	if err != nil {
		return "", err
	}
	name := filepath.Join(dir, id+".md")
	if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
		return "", err
	}
	editor := f.Getenv("VISUAL")
	if editor == "" {
		editor = f.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	// The editor may carry arguments ("code --wait"): the shell splits it.
	ps, err := proc.Run(ctx, proc.Spec{
		Path: "/bin/sh", Args: []string{"-c", editor + ` "$1"`, "sh", name}, Env: f.Environ(),
		Stdin: f.IO.In, Stdout: f.IO.Out, Stderr: f.IO.ErrOut, InTerminal: true,
	}, 0)
	if err != nil {
		return "", err
	}
	if code := ps.ExitCode(); code != 0 {
		return "", cmdutil.Usagef("the editor (%s) exited %d; plan %s is unchanged, the text is in %s", editor, code, id, name)
	}
	return name, nil
}
