package frontmatter

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ReadHead reads what Split reads, from the file's start.
func TestReadHeadAgreesWithSplit(t *testing.T) {
	dir := t.TempDir()
	for i, src := range []string{
		"---\nname: x\ndescription: d\n---\n\n# Title\nbody\n",
		"\ufeff---\r\nname: x\r\n---\r\n\r\n  first line  \r\nmore\r\n",
		"---\n---\nbody only",
		"---\nname: x\n---",
		"---\nname: x\n---  \n",
		"---\nname: x\n---x\nbody",
		"---\nname: x\n",
		"---\nname: x",
		"# no front matter\n\nbody",
		"\n\n  plain text first  \n",
		"",
		"---",
		"--- \nname: x\n---\n",
		"---\nname: x\n----\nbody",
		"---\nname: x\n---\n\n\n",
		"---\nname: x\ndescription: a --- b\n---\nbody\n",
		"---  \n\nname: x\n---  \n\n\n  # Title\nbody\n",
		"---\r\nname: x\r\n---\r\n\r\nbody\r\n",
		"\ufeff---\nname: x\n---\nbody\n",
		"--- x\nname: y\n---\nbody\n",
		// Blank lines after the end, by JavaScript's \s or Go's.
		"---\nname: x\n---\n\ufeff\n \u0085\n\u3000\n\n  text\nmore\n",
		"---\nname: x\n---\n\n\ufefftitle\nmore\n",
		"---\nname: x\n--- the end's line\nmore\n",
		"---\nname: x\n\n---\n\n",
		"---\nname: x\n--- \u3000\n\ntext\n",
		"---\nname: x\n---\ufeff\ntitle\nmore\n",
		"---\nname: x\n------\ntitle\n",
	} {
		path := filepath.Join(dir, "f.md")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		wantFM, body, wantErr := Split([]byte(src))
		fm, first, err := ReadHead(path)
		if (err == nil) != (wantErr == nil) || errors.Is(err, ErrNone) != errors.Is(wantErr, ErrNone) ||
			(err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%d %q: error %v, Split's %v", i, src, err, wantErr)
			continue
		}
		if wantErr != nil && !errors.Is(wantErr, ErrNone) {
			continue
		}
		wantFirst, _, _ := strings.Cut(strings.TrimSpace(body), "\n")
		if fm != wantFM || first != strings.TrimSpace(wantFirst) {
			t.Errorf("%d %q: ReadHead %q %q, Split %q %q", i, src, fm, first, wantFM, wantFirst)
		}
		if got, err := ReadBody(path); err != nil || got != body {
			t.Errorf("%d %q: ReadBody %q %v, want %q", i, src, got, err, body)
		}
	}
}

// ReadHead stops after the body's first line: reading from a pipe whose
// writer has written no more and keeps it open, it returns all the same.
func TestReadHeadReadsOnlyTheHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "SKILL.md")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	done := make(chan struct{})
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		_, _ = w.WriteString("---\ndescription: d\n---\n\nFirst line\n")
		<-done // the body's rest never comes while ReadHead runs
	}()
	type head struct {
		fm, first string
		err       error
	}
	got := make(chan head, 1)
	go func() {
		fm, first, err := ReadHead(path)
		got <- head{fm, first, err}
	}()
	defer close(done)
	select {
	case h := <-got:
		if h.err != nil || h.fm != "description: d\n" || h.first != "First line" {
			t.Fatalf("ReadHead = %q %q %v", h.fm, h.first, h.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ReadHead read past the body's first line: still waiting for the rest of the file")
	}
}

// find, the pattern in parts, gives what the pattern gives, on texts
// made of the characters it turns on.
func TestFindIsThePattern(t *testing.T) {
	parts := []string{"-", "---", "\n", " ", "\t", "\r\n", "\ufeff", "\u3000", "\u0085", "a", "name: x", "#"}
	rng := rand.New(rand.NewPCG(25, 1))
	for i := 0; i < 50000; i++ {
		var b strings.Builder
		if rng.IntN(4) > 0 {
			b.WriteString("---")
		}
		for n := rng.IntN(16); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		text := b.String()
		if got, want := find(text), pattern.FindStringSubmatchIndex(text); !slices.Equal(got, want) {
			t.Fatalf("%q: find %v, the pattern %v", text, got, want)
		}
	}
}
