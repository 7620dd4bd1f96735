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
