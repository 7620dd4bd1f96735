package review

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a repository with a main branch of two commits and a
// feature branch of one more.
func gitRepo(t *testing.T) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	git := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("a.txt", "one\n")
	git("add", ".")
	git("commit", "-qm", "one")
	write("a.txt", "one\ntwo\n")
	git("commit", "-qam", "two")
	git("checkout", "-qb", "feature")
	write("b.txt", "feature\n")
	git("add", ".")
	git("commit", "-qm", "feature")
	return dir, env
}

func TestCollect(t *testing.T) {
	dir, env := gitRepo(t)
	ctx := context.Background()
	if _, err := Collect(ctx, dir, env, ModeDiff, "", nil); !errors.Is(err, ErrNothing) {
		t.Fatalf("clean tree: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	c, err := Collect(ctx, dir, env, ModeDiff, "", nil)
	if err != nil || !strings.Contains(c.Text, "+three") || c.Bytes != len(c.Text) || !strings.Contains(c.What, "git diff HEAD") {
		t.Fatalf("diff: %v %+v", err, c)
	}
	// Staged changes count too.
	add := exec.Command("git", "add", "a.txt")
	add.Dir, add.Env = dir, env
	add.Run()
	if c, err := Collect(ctx, dir, env, ModeDiff, "", nil); err != nil || !strings.Contains(c.Text, "+three") {
		t.Fatalf("staged: %v %+v", err, c)
	}
	c, err = Collect(ctx, dir, env, ModeRange, "main~1..main", nil)
	if err != nil || !strings.Contains(c.Text, "+two") || strings.Contains(c.Text, "feature") {
		t.Fatalf("range: %v %+v", err, c)
	}
	c, err = Collect(ctx, dir, env, ModeBranch, "main", nil)
	if err != nil || !strings.Contains(c.Text, "+feature") || strings.Contains(c.Text, "+two") {
		t.Fatalf("branch: %v %+v", err, c)
	}
	c, err = Collect(ctx, dir, env, ModeFiles, "", []string{"b.txt", filepath.Join(dir, "a.txt")})
	if err != nil || !strings.HasPrefix(c.Text, "=== b.txt ===\nfeature\n=== /") {
		t.Fatalf("files: %v %+v", err, c)
	}
}

func TestCollectErrors(t *testing.T) {
	dir, env := gitRepo(t)
	ctx := context.Background()
	var ue *UsageError
	for _, tc := range []struct{ mode, ref string }{
		{ModeRange, "main"},
		{ModeRange, "nope..main"},
		{ModeBranch, "--output=/tmp/x"},
		{ModeBranch, "no-such-branch"},
	} {
		if _, err := Collect(ctx, dir, env, tc.mode, tc.ref, nil); !errors.As(err, &ue) {
			t.Errorf("%s %s: %v, want a usage error", tc.mode, tc.ref, err)
		}
	}
	if _, err := Collect(ctx, dir, env, ModeFiles, "", []string{"missing.txt"}); !errors.As(err, &ue) {
		t.Errorf("missing file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "blank.txt"), []byte("\n  \n"), 0o644)
	if _, err := Collect(ctx, dir, env, ModeFiles, "", []string{"blank.txt"}); !errors.Is(err, ErrNothing) {
		t.Errorf("blank file: %v", err)
	}
	if _, err := Collect(ctx, t.TempDir(), env, ModeDiff, "", nil); !errors.As(err, &ue) || !strings.Contains(err.Error(), "git diff HEAD") {
		t.Errorf("not a repository: %v", err)
	}
}

// A repository without a commit has no HEAD: its staged and unstaged
// changes are reviewed against the empty tree, in sha1 and sha256 repos.
func TestCollectNoCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			env := append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
			git := func(args ...string) {
				c := exec.Command("git", args...)
				c.Dir, c.Env = dir, env
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			git("init", "-q", "--object-format="+format)
			ctx := context.Background()
			if _, err := Collect(ctx, dir, env, ModeDiff, "", nil); !errors.Is(err, ErrNothing) {
				t.Fatalf("empty repository: %v", err)
			}
			// Untracked files are not in git diff, with or without a commit.
			write("untracked.txt", "untracked\n")
			if _, err := Collect(ctx, dir, env, ModeDiff, "", nil); !errors.Is(err, ErrNothing) {
				t.Fatalf("only an untracked file: %v", err)
			}
			write("a.txt", "staged\n")
			write("b.txt", "b\n")
			git("add", "a.txt", "b.txt")
			write("b.txt", "b\nunstaged\n")
			c, err := Collect(ctx, dir, env, ModeDiff, "", nil)
			if err != nil {
				t.Fatalf("no commit: %v", err)
			}
			for _, want := range []string{"+staged", "+b", "+unstaged", "new file mode"} {
				if !strings.Contains(c.Text, want) {
					t.Errorf("diff lacks %q:\n%s", want, c.Text)
				}
			}
			if strings.Contains(c.Text, "untracked") || c.Bytes != len(c.Text) || !strings.Contains(c.What, "empty tree") {
				t.Errorf("change %+v:\n%s", c, c.Text)
			}
		})
	}
}

// A run's recorded diff is the change, byte for byte, named by its
// session; an empty one is nothing to review.
func TestOfSession(t *testing.T) {
	diff := "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+\xff b\n"
	c, err := OfSession("01ABC", "csa/01ABC", []byte(diff))
	if err != nil || c.Mode != ModeSession || c.Ref != "01ABC" || c.Text != diff || c.Bytes != len(diff) ||
		!strings.Contains(c.What, "csa/01ABC") {
		t.Fatalf("%+v %v", c, err)
	}
	if !strings.Contains(ReviewPrompt(c), diff) {
		t.Error("the diff is not in the reviewers' prompt")
	}
	if _, err := OfSession("01ABC", "csa/01ABC", []byte("\n")); !errors.Is(err, ErrNothing) {
		t.Errorf("empty diff: %v", err)
	}
}
