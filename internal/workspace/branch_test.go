package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/gittree"
)

// A branch's names, first choice first, for the default template, one
// with every placeholder, one without {id}, and an exact name.
func TestBranches(t *testing.T) {
	const id = "01JF3K4Q2M5ABCDEFGHJKMNPQR"
	v := BranchVars{ID: id, Tool: "codex", At: time.Date(2025, 3, 9, 12, 0, 0, 0, time.Local)}
	for _, tt := range []struct {
		n    Naming
		want []string
	}{
		{Naming{}, []string{"csa/01JF3K4Q2M", "csa/" + id}},
		{Naming{Template: "{tool}/{date}/{id}"}, []string{"codex/20250309/01JF3K4Q2M", "codex/20250309/" + id}},
		{Naming{Template: "work-{tool}"}, []string{"work-codex", "work-codex-" + id}},
		{Naming{Template: "t/{tool}", Exact: "mine"}, []string{"mine", "mine-" + id}},
	} {
		if got := tt.n.Branches(v); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := (Naming{}).Branches(BranchVars{ID: "SHORT"}); !slices.Equal(got, []string{"csa/SHORT"}) {
		t.Errorf("a short id: %q", got)
	}
	for tmpl, ok := range map[string]bool{"csa/{id}": true, "{tool}-{date}": true, "plain": true, "a/{ID}": false, "{x}": false, " ": false} {
		if err := CheckTemplate(tmpl); (err == nil) != ok {
			t.Errorf("CheckTemplate(%q) = %v", tmpl, err)
		}
	}
}

// CheckBranch asks git: a name it refuses is ErrBadBranch, an exact name
// that exists ErrBranchExists; a template's taken name is not an error.
func TestCheckBranch(t *testing.T) {
	ctx := context.Background()
	g := &gittree.Git{Env: gittree.Clean(os.Environ())}
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "f"), "x\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	git(t, repo, "branch", "taken")
	v := BranchVars{Tool: "codex", At: time.Now()}
	for _, tt := range []struct {
		n    Naming
		want error
	}{
		{Naming{}, nil},
		{Naming{Exact: "free/name"}, nil},
		{Naming{Template: "taken"}, nil},
		{Naming{Exact: "taken"}, gittree.ErrBranchExists},
		{Naming{Exact: "a..b"}, gittree.ErrBadBranch},
		{Naming{Exact: "@{-1}"}, gittree.ErrBadBranch},
		{Naming{Template: "{tool}.lock"}, gittree.ErrBadBranch},
	} {
		if err := CheckBranch(ctx, g, repo, tt.n, v); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%+v: %v, want %v", tt.n, err, tt.want)
		}
	}
}
