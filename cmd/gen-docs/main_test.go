package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLIDocs: docs/cli is what the commands generate now, page for page.
func TestCLIDocs(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), "cli")
	if err := markdown(tmp); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", "docs", "cli")
	want, got := pages(t, tmp), pages(t, committed)
	if !slices.Equal(got, want) {
		t.Fatalf("docs/cli holds\n  %v\nthe commands make\n  %v\nrun make docs and commit docs/cli", got, want)
	}
	for _, p := range want {
		a, _ := os.ReadFile(filepath.Join(tmp, p))
		b, _ := os.ReadFile(filepath.Join(committed, p))
		if string(a) != string(b) {
			t.Errorf("docs/cli/%s is not what the commands make: run make docs and commit docs/cli", p)
		}
	}
}

// TestManPages: a man page per markdown page, each naming its command.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if err := manPages(dir); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(t.TempDir(), "cli")
	if err := markdown(md); err != nil {
		t.Fatal(err)
	}
	man, pagesMD := pages(t, dir), pages(t, md)
	if len(man) != len(pagesMD) || !slices.Contains(man, "csa-run.1") {
		t.Fatalf("%d man pages %v for %d markdown pages", len(man), man, len(pagesMD))
	}
	b, _ := os.ReadFile(filepath.Join(dir, "csa-run.1"))
	if !strings.Contains(string(b), ".TH \"CSA\" \"1\"") || !strings.Contains(string(b), "csa-run - Run an agent tool") {
		t.Errorf("csa-run.1 is not csa run's man page:\n%s", b)
	}
}

func pages(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v (run make docs)", err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestEnvironmentDocs: docs/environment.md's table is what internal/csaenv
// makes now.
func TestEnvironmentDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "environment.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := withEnvTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(doc) {
		t.Fatalf("docs/environment.md's table is not what internal/csaenv makes: run make docs and commit it")
	}
}

// TestEnvironmentDocsStale: a table a row short, or one edited by hand, is
// made anew; a page without the markers is an error, not a page left alone.
func TestEnvironmentDocsStale(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "environment.md")
	fresh, err := withEnvTable([]byte("# Environment\n\n" + envBegin + envEnd + "after\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, stale := range []string{
		strings.Replace(string(fresh), "| `CSA_DEPTH` |", "", 1),
		strings.Replace(string(fresh), "CSA_SESSION_ID", "CSA_SESSION", 1),
		strings.Replace(string(fresh), "\n\n"+envEnd, "\n| `CSA_GONE` | gone | csa |\n\n"+envEnd, 1),
	} {
		if stale == string(fresh) {
			t.Fatalf("the stale page is the fresh one:\n%s", fresh)
		}
		if err := os.WriteFile(page, []byte(stale), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := environment(page); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(page); string(got) != string(fresh) {
			t.Errorf("made anew from\n%s\nthe page is\n%s", stale, got)
		}
	}
	if !strings.Contains(string(fresh), "| `CSA_SESSION_ID` | ") || !strings.HasSuffix(string(fresh), envEnd+"after\n") {
		t.Errorf("the fresh page lacks the table or what follows it:\n%s", fresh)
	}
	os.WriteFile(page, []byte("# Environment\n"), 0o644)
	if err := environment(page); err == nil || !strings.Contains(err.Error(), "no table") {
		t.Errorf("a page without markers: %v", err)
	}
}
