package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/outputstyle"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPromptHasTheEnvironmentAndInstructionsNearestLast(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/feature-x\n")
	write(t, filepath.Join(root, "AGENTS.md"), "root rules")
	write(t, filepath.Join(root, "sub", "CLAUDE.md"), "sub rules")
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "user rules")
	cwd := filepath.Join(root, "sub", "deeper")
	os.MkdirAll(cwd, 0o755)

	p := Build(Env{Cwd: cwd, Home: home, Now: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Mode: "plan"})
	for _, want := range []string{"Working directory: " + cwd, "Git root: " + root, "Git branch: feature-x",
		"Today's date: 2026-11-23", "Permission mode: plan"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	u, r, s := strings.Index(p, "user rules"), strings.Index(p, "root rules"), strings.Index(p, "sub rules")
	if u < 0 || r < 0 || s < 0 || !(u < r && r < s) {
		t.Fatalf("instructions missing or out of order (user %d, root %d, sub %d):\n%s", u, r, s, p)
	}
	if ProjectRoot(cwd) != root {
		t.Fatalf("ProjectRoot %q", ProjectRoot(cwd))
	}
}

func TestWorktreeGitFileAndNoRepo(t *testing.T) {
	gitdir := t.TempDir()
	write(t, filepath.Join(gitdir, "HEAD"), "0123456789abcdef0123456789abcdef01234567\n")
	wt := t.TempDir()
	write(t, filepath.Join(wt, ".git"), "gitdir: "+gitdir+"\n")
	if p := Build(Env{Cwd: wt, Now: time.Now()}); !strings.Contains(p, "Git branch: detached at 0123456789ab") {
		t.Fatalf("worktree:\n%s", p)
	}
	plain := t.TempDir()
	if p := Build(Env{Cwd: plain, Now: time.Now()}); !strings.Contains(p, "Is directory a git repo: false") || ProjectRoot(plain) != plain {
		t.Fatalf("no repo:\n%s", p)
	}
}

func TestOutputStyle(t *testing.T) {
	cwd := t.TempDir()
	plain := Build(Env{Cwd: cwd, Now: time.Now()})
	if !strings.HasPrefix(plain, identity) || strings.Contains(plain, "Output Style") {
		t.Fatalf("without a style the prompt changed:\n%s", plain)
	}
	style := &outputstyle.Style{Name: "Terse", Prompt: "One line.\n\nNo lists."}
	p := Build(Env{Cwd: cwd, Now: time.Now(), Style: style})
	if !strings.Contains(p, "\n# Output Style: Terse\nOne line.\n\nNo lists.\n") || strings.Contains(p, codingGuidance) ||
		!strings.HasPrefix(p, styledIdentity) || !strings.Contains(p, toolGuidance) {
		t.Fatalf("styled prompt:\n%s", p)
	}
	style.KeepCodingInstructions = true
	if p := Build(Env{Cwd: cwd, Now: time.Now(), Style: style}); !strings.Contains(p, codingGuidance) {
		t.Fatalf("a style keeping the coding guidance lost it:\n%s", p)
	}
}
