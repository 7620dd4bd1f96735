package change

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/takeback"
)

// appliedView is csa apply --json's answer, as csa-cluster gives it for
// a remote run.
type appliedView struct {
	SessionID string            `json:"session_id"`
	Applied   bool              `json:"applied"`
	Check     bool              `json:"check"`
	Files     []string          `json:"files"`
	Conflicts []string          `json:"conflicts"`
	Detail    string            `json:"detail,omitempty"`
	RawBytes  map[string]string `json:"raw_bytes,omitempty"`
}

// Apply is csa apply of a local worktree run's change: onto the work
// tree holding the current directory, all of it or nothing, the index
// untouched; --diff prints it instead. A conflict lists its paths and
// exits 1.
func Apply(ctx context.Context, f *cmdutil.Factory, c *takeback.Change, check, printDiff bool) error {
	g := Git(f)
	if printDiff {
		d, err := takeback.Diff(ctx, g, c)
		if err != nil {
			return err
		}
		_, err = f.IO.Out.Write(d)
		return err
	}
	if err := InWorkTree(ctx, g, "apply"); err != nil {
		return err
	}
	files, err := takeback.Apply(ctx, g, ".", c, check)
	v := &appliedView{SessionID: c.SessionID, Applied: err == nil && !check, Check: check, Files: files, Conflicts: []string{}}
	var conflict *gittree.Conflict
	if errors.As(err, &conflict) {
		v.Applied, v.Conflicts, v.Detail = false, conflict.Paths, conflict.Detail
	} else if err != nil {
		return err
	}
	if v.Files == nil {
		v.Files = []string{}
	}
	switch {
	case f.JSON:
		if err := printJSON(f, v); err != nil {
			return err
		}
	case conflict == nil:
		verb := "applied"
		if check {
			verb = "applies cleanly"
		}
		fmt.Fprintf(f.IO.Out, "%s: %s (%d files: %s)\n", c.SessionID, verb, len(files), strings.Join(quotedAll(files), ", "))
	default:
		fmt.Fprintf(f.IO.ErrOut, "csa apply: %s does not apply; nothing was changed. Conflicting paths:\n  %s\n%s\n",
			c.SessionID, strings.Join(quotedAll(conflict.Paths), "\n  "), conflict.Detail)
	}
	if conflict != nil {
		return &cmdutil.Silent{Exit: cmdutil.ExitFailed}
	}
	return nil
}

func quotedAll(paths []string) []string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = quoted(p)
	}
	return q
}
