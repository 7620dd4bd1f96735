package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/testkit/gitserve"
)

// writeTree writes files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// marketplaceFixture is a marketplace "tools" with a versioned plugin and
// one without a version.
var marketplaceFixture = map[string]string{
	".claude-plugin/marketplace.json": `{"name": "tools", "owner": {"name": "Us"}, "plugins": [
		{"name": "fmt", "source": "./plugins/fmt", "version": "0.9.0"},
		{"name": "lint", "source": "./plugins/lint"},
		{"name": "away", "source": "../elsewhere"},
		{"name": "remote", "source": {"source": "github", "repo": "o/r"}}]}`,
	"plugins/fmt/.claude-plugin/plugin.json": `{"name": "fmt", "version": "1.0.0"}`,
	"plugins/fmt/commands/tidy.md":           "Tidy the code.\n",
	"plugins/lint/commands/check.md":         "Check the code.\n",
}

func readObject(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func TestParseSource(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"m.json": "{}", "notes.txt": ""})
	for arg, want := range map[string]Source{
		"git@example.com:team/market.git":        {Source: "git", URL: "git@example.com:team/market.git"},
		"https://example.com/team/market.git#v2": {Source: "git", URL: "https://example.com/team/market.git", Ref: "v2"},
		"https://github.com/team/market":         {Source: "git", URL: "https://github.com/team/market.git"},
		"team/market":                            {Source: "github", Repo: "team/market"},
		"team/market@v1":                         {Source: "github", Repo: "team/market", Ref: "v1"},
		dir:                                      {Source: "directory", Path: dir},
		filepath.Join(dir, "m.json"):             {Source: "file", Path: filepath.Join(dir, "m.json")},
		"~/":                                     {Source: "directory", Path: dir},
	} {
		got, err := ParseSource(arg, dir)
		if err != nil || got != want {
			t.Errorf("ParseSource(%q) = %+v, %v; want %+v", arg, got, err, want)
		}
	}
	for _, arg := range []string{"file:///srv/market.git", "https://example.com/market.json", filepath.Join(dir, "nope"),
		filepath.Join(dir, "notes.txt"), "just-a-name", "bad_owner!/x"} {
		var in *InputError
		if _, err := ParseSource(arg, dir); !errors.As(err, &in) {
			t.Errorf("ParseSource(%q): %v, want an input error", arg, err)
		}
	}
}

func TestDirectoryMarketplaceLifecycle(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	mkt, home, project := filepath.Join(root, "market"), filepath.Join(root, "home"), filepath.Join(root, "project")
	writeTree(t, mkt, marketplaceFixture)
	writeTree(t, home, map[string]string{".claude/settings.json": `{"model": "opus", "enabledPlugins": {"other@x": false}}`})
	writeTree(t, project, map[string]string{".claude/settings.json": `{"permissions": {"allow": ["Read"]}}`})
	l := Layout{Home: home, ProjectRoot: project}

	m, err := l.AddMarketplace(ctx, mkt)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "tools" || m.InstallLocation != mkt || m.Source != (Source{Source: "directory", Path: mkt}) {
		t.Fatalf("added %+v", m)
	}
	in, err := l.Install(ctx, "fmt@tools", "user")
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(home, ".claude/plugins/cache/tools/fmt/1.0.0") // plugin.json's version wins
	if in.InstallPath != wantPath || in.Version != "1.0.0" || in.GitCommitSha != "" {
		t.Fatalf("installed %+v", in)
	}
	if b, err := os.ReadFile(filepath.Join(wantPath, "commands/tidy.md")); err != nil || string(b) != "Tidy the code.\n" {
		t.Fatalf("cached command: %q, %v", b, err)
	}
	if _, err := l.Install(ctx, "fmt@tools", "project"); err != nil {
		t.Fatal(err)
	}
	user := readObject(t, filepath.Join(home, ".claude/settings.json"))
	if user["model"] != "opus" || user["enabledPlugins"].(map[string]any)["other@x"] != false ||
		user["enabledPlugins"].(map[string]any)["fmt@tools"] != true || user["extraKnownMarketplaces"].(map[string]any)["tools"] == nil {
		t.Fatalf("user settings: %v", user)
	}
	// Its keys keep their order; new ones go last, as Claude Code adds them.
	if b, _ := os.ReadFile(filepath.Join(home, ".claude/settings.json")); !strings.HasPrefix(string(b),
		"{\n  \"model\": \"opus\",\n  \"enabledPlugins\": {\n    \"other@x\": false,\n    \"fmt@tools\": true\n  },\n  \"extraKnownMarketplaces\"") {
		t.Fatalf("user settings laid out anew:\n%s", b)
	}
	proj := readObject(t, filepath.Join(project, ".claude/settings.json"))
	if proj["permissions"] == nil || proj["enabledPlugins"].(map[string]any)["fmt@tools"] != true {
		t.Fatalf("project settings: %v", proj)
	}
	reg := readObject(t, filepath.Join(home, ".claude/plugins/installed_plugins.json"))
	list := reg["plugins"].(map[string]any)["fmt@tools"].([]any)
	if reg["version"] != 2.0 || len(list) != 2 || list[1].(map[string]any)["projectPath"] != project {
		t.Fatalf("installed_plugins.json: %v", reg)
	}

	// What was installed is what csa-agent loads, from the marketplace's
	// folder (a directory marketplace's plugins are read in place, as
	// Claude Code reads them).
	loaded, err := Enabled(Sources{Home: home, ProjectRoot: project})
	if err != nil || len(loaded) != 1 || loaded[0].ID != "fmt@tools" || loaded[0].Root != filepath.Join(mkt, "plugins/fmt") {
		t.Fatalf("Enabled = %+v, %v", loaded, err)
	}

	// Disabling picks the most specific scope it is installed at.
	if at, err := l.SetEnabled("fmt@tools", "", false); err != nil || at != "project" {
		t.Fatalf("disable: %q, %v", at, err)
	}
	if _, err := l.SetEnabled("fmt@tools", "project", false); err == nil {
		t.Fatal("disabling twice succeeded")
	}
	if loaded, _ := Enabled(Sources{Home: home, ProjectRoot: project}); len(loaded) != 0 {
		t.Fatalf("disabled plugin still loaded: %+v", loaded)
	}
	// Listed: both installations, the id disabled here (the project's
	// settings beat the user's).
	listed, err := l.List()
	if err != nil || len(listed) != 2 || listed[0].Scope != "user" || listed[1].Scope != "project" || listed[0].Enabled || listed[1].Enabled {
		t.Fatalf("List = %+v, %v", listed, err)
	}

	if err := l.Uninstall("fmt@tools", "user"); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(wantPath, orphanMark)) {
		t.Fatal("a copy the project installation still uses was marked orphaned")
	}
	if err := l.Uninstall("fmt@tools", "user"); err == nil {
		t.Fatal("uninstalling twice succeeded")
	}
	if err := l.RemoveMarketplace("tools"); err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(wantPath, orphanMark)) || !exists(mkt) {
		t.Fatal("removing the marketplace: its copy is not marked orphaned, or its folder was deleted")
	}
	reg = readObject(t, filepath.Join(home, ".claude/plugins/installed_plugins.json"))
	known := readObject(t, filepath.Join(home, ".claude/plugins/known_marketplaces.json"))
	if len(reg["plugins"].(map[string]any)) != 0 || len(known) != 0 {
		t.Fatalf("after remove: %v, %v", reg, known)
	}
	if user := readObject(t, filepath.Join(home, ".claude/settings.json")); user["model"] != "opus" {
		t.Fatalf("user settings lost a key: %v", user)
	}
}

func TestGitMarketplace(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	src, home := filepath.Join(root, "market"), filepath.Join(root, "home")
	writeTree(t, src, marketplaceFixture)
	url, commit := gitserve.Repo(t, src)
	l := Layout{Home: home}
	m, err := l.AddMarketplace(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(home, ".claude/plugins/marketplaces/tools")
	if m.InstallLocation != clone || m.Source != (Source{Source: "git", URL: url}) || !exists(filepath.Join(clone, ".git")) {
		t.Fatalf("added %+v", m)
	}
	in, err := l.Install(ctx, "lint@tools", "user")
	if err != nil {
		t.Fatal(err)
	}
	if in.Version != commit[:12] || in.GitCommitSha != commit || exists(filepath.Join(in.InstallPath, ".git")) ||
		in.InstallPath != filepath.Join(home, ".claude/plugins/cache/tools/lint", commit[:12]) {
		t.Fatalf("installed %+v (commit %s)", in, commit)
	}
	if _, err := l.UpdateMarketplaces(ctx); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(clone))
	if err != nil || len(entries) != 1 {
		t.Fatalf("marketplaces folder after update: %v, %v", entries, err)
	}
	if err := l.RemoveMarketplace("tools"); err != nil || exists(clone) {
		t.Fatalf("remove: %v (clone left: %v)", err, exists(clone))
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	mkt, home := filepath.Join(root, "market"), filepath.Join(root, "home")
	writeTree(t, mkt, marketplaceFixture)
	writeTree(t, filepath.Join(root, "broken"), map[string]string{".claude-plugin/marketplace.json": `{"name": "b", "plugins": [`})
	writeTree(t, filepath.Join(root, "nameless"), map[string]string{".claude-plugin/marketplace.json": `{"plugins": []}`})
	l := Layout{Home: home}
	for _, arg := range []string{filepath.Join(root, "broken"), filepath.Join(root, "nameless"), filepath.Join(root, "missing"), root} {
		_, err := l.AddMarketplace(ctx, arg)
		var in *InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), root) {
			t.Errorf("add %s: %v, want an input error naming it", arg, err)
		}
	}
	if exists(filepath.Join(home, ".claude")) {
		t.Fatal("a failed add wrote files")
	}
	if _, err := l.AddMarketplace(ctx, mkt); err != nil {
		t.Fatal(err)
	}
	before := readObject(t, filepath.Join(home, ".claude/settings.json"))
	for id, want := range map[string]string{"nope@tools": `"nope" not found in marketplace "tools"`,
		"fmt@other": `marketplace "other" not found`, "fmt": "NAME@MARKETPLACE",
		"away@tools": "leaves the marketplace", "remote@tools": "not a path"} {
		_, err := l.Install(ctx, id, "user")
		var in *InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), want) {
			t.Errorf("install %s: %v, want an input error with %q", id, err, want)
		}
	}
	if _, err := l.Install(ctx, "fmt@tools", "project"); err == nil {
		t.Error("a project install without a project succeeded")
	}
	if exists(filepath.Join(home, ".claude/plugins/installed_plugins.json")) || exists(filepath.Join(home, ".claude/plugins/cache")) {
		t.Fatal("a failed install wrote files")
	}
	after := readObject(t, filepath.Join(home, ".claude/settings.json"))
	if b1, _ := json.Marshal(before); string(b1) != string(mustJSON(t, after)) {
		t.Fatalf("settings changed: %v → %v", before, after)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
