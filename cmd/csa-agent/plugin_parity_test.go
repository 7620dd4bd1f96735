package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/testkit/devenv"
	"github.com/csa-dev/csa/internal/testkit/gitserve"
)

// pluginMarketplace is a marketplace (named by the caller) listing a
// plugin with a version and a command, and one without a version.
func pluginMarketplace(name string) map[string]string {
	return map[string]string{
		".claude-plugin/marketplace.json": `{"name": "` + name + `", "owner": {"name": "Us"}, "plugins": [
			{"name": "greet", "source": "./plugins/greet", "description": "Greetings"},
			{"name": "plain", "source": "./plugins/plain", "version": "0.1.0"}]}`,
		"plugins/greet/.claude-plugin/plugin.json": `{"name": "greet", "version": "2.0.0", "description": "Greetings"}`,
		"plugins/greet/commands/hello.md":          "---\ndescription: Says hello to the team\n---\nSay hello.\n",
		"plugins/plain/commands/wave.md":           "---\ndescription: Waves at the team\n---\nWave.\n",
		"shared/notes.md":                          "Shared notes.\n",
	}
}

// linkPlugin gives the marketplace at dir's greet plugin symbolic links:
// one to its own file, one to a file elsewhere in the marketplace, one
// out of it (to outside).
func linkPlugin(t *testing.T, dir, outside string) {
	t.Helper()
	for name, target := range map[string]string{"hi.md": "hello.md", "notes.md": "../../../shared/notes.md", "out.md": outside} {
		if err := os.Symlink(target, filepath.Join(dir, "plugins/greet/commands", name)); err != nil {
			t.Fatal(err)
		}
	}
}

// pluginSide is one program's HOME and project, prepared for Claude Code.
type pluginSide struct {
	name, home, project string
	env                 []string
	run                 func(args ...string) *exec.Cmd
}

// TestPluginInstallParityWithClaudeCode adds the same two marketplaces (a
// folder and a git repository served over HTTP) and installs the same
// plugins with csa-agent in one HOME and with Claude Code in another:
// the files must agree (timestamps and the HOME and project paths aside),
// each program must list what the other installed, and each must load it
// (offer its command to the model).
func TestPluginInstallParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	for name, content := range pluginMarketplace("folder-tools") {
		if err := writeFile(filepath.Join(dir, "folder", name), content); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range pluginMarketplace("git-tools") {
		if err := writeFile(filepath.Join(dir, "gitsrc", name), content); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeFile(filepath.Join(dir, "outside.md"), "Not the marketplace's.\n"); err != nil {
		t.Fatal(err)
	}
	linkPlugin(t, filepath.Join(dir, "folder"), filepath.Join(dir, "outside.md"))
	linkPlugin(t, filepath.Join(dir, "gitsrc"), filepath.Join(dir, "outside.md"))
	gitURL, commit := gitserve.Repo(t, filepath.Join(dir, "gitsrc"))
	agent := selfAs(t, "csa-agent")
	side := func(name string) *pluginSide {
		s := &pluginSide{name: name, home: filepath.Join(dir, name, "home"), project: filepath.Join(dir, name, "project")}
		if err := writeFile(filepath.Join(s.project, ".git", "HEAD"), "ref: refs/heads/main\n"); err != nil {
			t.Fatal(err)
		}
		// Prepared first: Prepare rewrites settings.json, whose other keys
		// the plugin commands must then keep.
		env, err := devenv.Prepare(s.home, "http://127.0.0.1:9", devenv.Options{Programs: []string{"claude"},
			Trusted: []string{s.project}, Retries: 0})
		if err != nil {
			t.Fatal(err)
		}
		s.env = devenv.Merge(cleanEnv(), append(env, "HOME="+s.home, "PWD="+s.project,
			"XDG_STATE_HOME="+filepath.Join(dir, name, "state")))
		s.run = func(args ...string) *exec.Cmd {
			prog := claude
			if name == "csa-agent" {
				prog = agent
			}
			cmd := exec.Command(prog, args...)
			cmd.Dir, cmd.Env = s.project, s.env
			return cmd
		}
		return s
	}
	sides := []*pluginSide{side("claude"), side("csa-agent")}
	for _, s := range sides {
		for _, args := range [][]string{
			{"plugin", "marketplace", "add", filepath.Join(dir, "folder")},
			{"plugin", "marketplace", "add", gitURL},
			{"plugin", "install", "greet@folder-tools"},
			{"plugin", "install", "plain@git-tools", "--scope", "project"},
			{"plugin", "install", "greet@git-tools", "--scope", "local"},
		} {
			if out, err := s.run(args...).CombinedOutput(); err != nil {
				t.Fatalf("%s %v: %v\n%s", s.name, args, err, out)
			}
		}
	}

	// The same files.
	for _, rel := range []string{"home/.claude/plugins/known_marketplaces.json", "home/.claude/plugins/installed_plugins.json",
		"home/.claude/settings.json", "project/.claude/settings.json", "project/.claude/settings.local.json"} {
		got := [2]string{}
		for i, s := range sides {
			got[i] = normalizedJSON(t, filepath.Join(dir, s.name, rel), s)
		}
		if got[0] != got[1] {
			t.Errorf("%s differs:\nClaude Code: %s\ncsa-agent:   %s", rel, got[0], got[1])
		}
	}
	for _, rel := range []string{"home/.claude/plugins/cache", "home/.claude/plugins/marketplaces"} {
		got := [2]string{}
		for i, s := range sides {
			got[i] = treeOf(t, filepath.Join(dir, s.name, rel))
		}
		if got[0] != got[1] {
			t.Errorf("%s differs:\nClaude Code:\n%s\ncsa-agent:\n%s", rel, got[0], got[1])
		}
	}
	if tree := treeOf(t, filepath.Join(dir, "csa-agent/home/.claude/plugins/cache")); !strings.Contains(tree, "git-tools/plain/0.1.0/commands/wave.md") ||
		!strings.Contains(tree, "folder-tools/greet/2.0.0/commands/hello.md") ||
		!strings.Contains(tree, "folder-tools/greet/2.0.0/commands/hi.md -> hello.md") ||
		!strings.Contains(tree, "folder-tools/greet/2.0.0/commands/notes.md: Shared notes.") || strings.Contains(tree, "out.md") {
		t.Errorf("cache lacks the plugins (commit %s):\n%s", commit, tree)
	}

	// Each lists what the other installed, as the other does.
	lists := [2]string{}
	for i, s := range sides {
		other := sides[1-i]
		listed := [2][]byte{}
		for j, prog := range []*pluginSide{other, s} {
			cmd := prog.run("plugin", "list", "--json")
			cmd.Env, cmd.Dir = s.env, s.project
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s plugin list in %s's HOME: %v", prog.name, s.name, err)
			}
			listed[j] = out
		}
		lists[i] = listSummary(t, listed[0])
		if a, b := normalize(t, listed[0], s), normalize(t, listed[1], s); a != b {
			t.Errorf("plugin list --json in %s's HOME:\n%s: %s\n%s: %s", s.name, other.name, a, s.name, b)
		}
	}
	want := "greet@folder-tools 2.0.0 user true; greet@git-tools 2.0.0 local true; plain@git-tools 0.1.0 project true"
	for i, s := range sides {
		if lists[i] != want {
			t.Errorf("%s's installation as %s lists it: %s", s.name, sides[1-i].name, lists[i])
		}
	}

	// Each loads what the other installed.
	for i, s := range sides {
		other := sides[1-i]
		text := requestSent(t, s.project, func(url string) *exec.Cmd {
			cmd := other.run("-p", "parity: list them")
			if other.name == "claude" {
				cmd.Args = append(cmd.Args, "--max-turns", "1")
			}
			cmd.Env = append(append([]string{}, s.env...), "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=k",
				"CSA_AGENT_MODEL=anthropic/claude-test")
			return cmd
		})
		for _, name := range []string{"greet:hello", "plain:wave"} {
			if !strings.Contains(text, name) {
				t.Errorf("%s, in %s's installation, does not offer %s", other.name, s.name, name)
			}
		}
	}
}

// normalizedJSON is the JSON file at path with s's HOME and project paths
// named and the install and update times blanked, keys sorted.
func normalizedJSON(t *testing.T, path string, s *pluginSide) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return normalize(t, data, s)
}

func normalize(t *testing.T, data []byte, s *pluginSide) string {
	t.Helper()
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), s.home, "$HOME"), s.project, "$PROJECT")
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	var blank func(any)
	blank = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "installedAt" || k == "lastUpdated" {
					v[k] = "T"
				}
				blank(x)
			}
		case []any:
			for _, x := range v {
				blank(x)
			}
		}
	}
	blank(v)
	// Claude Code copies DISABLE_AUTOUPDATER from its environment (the
	// test's) into settings.json's env, plugins or not.
	if m, ok := v.(map[string]any); ok {
		if env, ok := m["env"].(map[string]any); ok && len(env) == 1 && env["DISABLE_AUTOUPDATER"] == "1" {
			delete(m, "env")
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// treeOf lists the files under root with their contents, without .git
// folders and the in-use marks of Claude Code's sessions (a file, or a
// folder of one file a process, left until a later session sweeps it).
func treeOf(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" || d.Name() == ".in_use" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			lines = append(lines, rel+" -> "+target)
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, rel+": "+string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// listSummary is `plugin list --json` as "id version scope enabled"
// items, sorted.
func listSummary(t *testing.T, out []byte) string {
	t.Helper()
	var rows []struct {
		ID, Version, Scope string
		Enabled            bool
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("plugin list --json: %v\n%s", err, out)
	}
	var items []string
	for _, r := range rows {
		items = append(items, strings.Join([]string{r.ID, r.Version, r.Scope, map[bool]string{true: "true", false: "false"}[r.Enabled]}, " "))
	}
	sort.Strings(items)
	return strings.Join(items, "; ")
}
