package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/perm"
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

func names(list []Skill) string {
	var out []string
	for _, sk := range list {
		out = append(out, sk.Name+"("+sk.Source+")")
	}
	return strings.Join(out, " ")
}

func TestLoad(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude/skills/shared/SKILL.md"), "---\nname: shared\ndescription: the user's\n---\nuser body")
	write(t, filepath.Join(home, ".claude/skills/mine/SKILL.md"), "---\ndescription: only the user's\nallowed-tools: Read, Bash(git add:*)\n---\nmine")
	write(t, filepath.Join(home, ".claude/commands/hello.md"), "# Say hello\nHello $ARGUMENTS")
	write(t, filepath.Join(proj, ".claude/skills/shared/SKILL.md"), "---\nname: shared\ndescription: the project's\nuser-invocable: false\n---\nproject body")
	write(t, filepath.Join(proj, ".claude/skills/quiet/SKILL.md"), "---\ndescription: user only\ndisable-model-invocation: true\nargument-hint: [issue] [priority]\nhooks:\n  Stop:\n    - matcher: x\n---\nq")
	write(t, filepath.Join(proj, ".claude/skills/broken/SKILL.md"), "---\ndescription: over lines\nContext: not YAML\n<example>\n---\n# Broken, described by its body\n")
	write(t, filepath.Join(proj, ".claude/skills/badbool/SKILL.md"), "---\nuser-invocable: yes\n---\n")
	write(t, filepath.Join(proj, ".claude/skills/notaskill/README.md"), "no SKILL.md here")
	write(t, filepath.Join(proj, ".claude/commands/frontend/component.md"), "---\ndescription: make a component\nallowed-tools:\n  - Write\n---\nMake $1 in $2")
	write(t, filepath.Join(proj, ".claude/commands/badrule.md"), "---\nallowed-tools: Bash(\n---\nx")

	set, err := Load(Sources{Home: home, ProjectRoot: proj})
	// As in Claude Code: front matter that is not YAML is ignored, the
	// skill kept (the error reported), and a flag not true is false. Of
	// two skills named shared, the user's wins.
	if got := names(set.All()); got != "badbool(project) broken(project) frontend:component(project) hello(user) mine(user) quiet(project) shared(user)" {
		t.Fatalf("All = %s (%v)", got, err)
	}
	if broken, _ := set.Lookup("broken"); broken.Description != "Broken, described by its body" {
		t.Errorf("broken = %+v", broken)
	}
	if badbool, _ := set.Lookup("badbool"); badbool.UserInvocable {
		t.Errorf("user-invocable: yes is not true: %+v", badbool)
	}
	for _, want := range []string{"broken/SKILL.md: front matter ignored: front matter is not YAML",
		"command " + filepath.Join(proj, ".claude/commands/badrule.md") + ": allowed-tools"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	shared, _ := set.Lookup("shared")
	if instructions(t, shared) != "user body" || !shared.UserInvocable || !shared.ModelInvocable || shared.Kind != KindSkill {
		t.Errorf("shared = %+v", shared)
	}
	mine, _ := set.Lookup("mine")
	if fmt.Sprint(mine.AllowedTools) != "[Read Bash(git add:*)]" || mine.Dir != filepath.Join(home, ".claude/skills/mine") {
		t.Errorf("mine = %+v", mine)
	}
	quiet, _ := set.Lookup("quiet")
	if quiet.ModelInvocable || !quiet.UserInvocable || quiet.ArgumentHint != "[issue] [priority]" {
		t.Errorf("quiet = %+v", quiet)
	}
	hello, _ := set.Lookup("hello")
	// A command without a description of its own is described by its first
	// line and, as in Claude Code 2.1, offered to the model all the same.
	if hello.Description != "Say hello" || !hello.ModelInvocable || hello.Kind != KindCommand {
		t.Errorf("hello = %+v", hello)
	}
	comp, _ := set.Lookup("frontend:component")
	if !comp.ModelInvocable || fmt.Sprint(comp.AllowedTools) != "[Write]" {
		t.Errorf("frontend:component = %+v", comp)
	}
	if got := names(set.ModelInvocable()); got != "badbool(project) broken(project) frontend:component(project) hello(user) mine(user) shared(user)" {
		t.Errorf("ModelInvocable = %s", got)
	}
}

func TestPlugins(t *testing.T) {
	home, proj, other := t.TempDir(), t.TempDir(), t.TempDir()
	cache := filepath.Join(home, ".claude/plugins/cache/mkt")
	for _, p := range []string{"tools", "proj", "elsewhere", "off"} {
		write(t, filepath.Join(cache, p, "1.0/skills/lint/SKILL.md"), "---\ndescription: lint from "+p+"\n---\nlint ${CLAUDE_PLUGIN_ROOT}")
		write(t, filepath.Join(cache, p, "1.0/commands/git/ship.md"), "ship it")
	}
	write(t, filepath.Join(home, ".claude/plugins/installed_plugins.json"), `{"version": 2, "plugins": {
  "tools@mkt": [{"scope": "user", "installPath": "`+cache+`/tools/1.0"}],
  "proj@mkt": [{"scope": "project", "projectPath": "`+other+`", "installPath": "/nowhere"},
               {"scope": "project", "projectPath": "`+proj+`", "installPath": "`+cache+`/proj/1.0"}],
  "elsewhere@mkt": [{"scope": "local", "projectPath": "`+other+`", "installPath": "`+cache+`/elsewhere/1.0"}],
  "off@mkt": {"installPath": "`+cache+`/off/1.0"}}}`)
	write(t, filepath.Join(home, ".claude/settings.json"), `{"enabledPlugins": {"tools@mkt": true, "off@mkt": true, "elsewhere@mkt": true}}`)
	write(t, filepath.Join(proj, ".claude/settings.json"), `{"enabledPlugins": {"proj@mkt": true, "ghost@mkt": true}}`)
	write(t, filepath.Join(proj, ".claude/settings.local.json"), `{"enabledPlugins": {"off@mkt": false}}`)
	set, err := Load(Sources{Home: home, ProjectRoot: proj})
	if got := names(set.All()); got != "proj:git:ship(plugin proj) proj:lint(plugin proj) tools:git:ship(plugin tools) tools:lint(plugin tools)" {
		t.Errorf("All = %s", got)
	}
	if err == nil || !strings.Contains(err.Error(), "ghost@mkt is enabled but not in") {
		t.Errorf("error %v", err)
	}
	// A plugin's command without a description of its own is not offered
	// to the model, as in Claude Code.
	if got := names(set.ModelInvocable()); got != "proj:lint(plugin proj) tools:lint(plugin tools)" {
		t.Errorf("ModelInvocable = %s", got)
	}
	lint, _ := set.Lookup("tools:lint")
	if got := prompt(t, lint, "", "s"); !strings.HasSuffix(got, "lint "+filepath.Join(cache, "tools/1.0")) {
		t.Errorf("plugin root not substituted: %q", got)
	}

	// Version 1: one installation an id, user-wide.
	write(t, filepath.Join(home, ".claude/plugins/installed_plugins.json"), `{"version": 1, "plugins": {"off@mkt": {"installPath": "`+cache+`/off/1.0"}}}`)
	write(t, filepath.Join(proj, ".claude/settings.local.json"), `{"enabledPlugins": {"off@mkt": true}}`)
	set, _ = Load(Sources{Home: home, ProjectRoot: proj})
	if _, ok := set.Lookup("off:lint"); !ok {
		t.Errorf("version 1 registry: %s", names(set.All()))
	}
}

func TestInvocation(t *testing.T) {
	for line, want := range map[string][3]string{
		"/fix 12 high":         {"fix", "12 high", "true"},
		"  /frontend:comp  x ": {"frontend:comp", "x", "true"},
		"/help":                {"help", "", "true"},
		"/tmp/x.log: why?":     {"", "", "false"},
		"fix /this":            {"", "", "false"},
		"/":                    {"", "", "false"},
	} {
		name, args, ok := Invocation(line)
		if got := [3]string{name, args, fmt.Sprint(ok)}; got != want {
			t.Errorf("Invocation(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestPrompt(t *testing.T) {
	// $N counts from 0, as $ARGUMENTS[N] does, as in Claude Code.
	cmd := Skill{Kind: KindCommand, Body: "Fix issue $0 ($ARGUMENTS[1]) with $1; all: $ARGUMENTS; none: [$2] ${CLAUDE_SESSION_ID}"}
	if got := prompt(t, cmd, `12 "high priority"`, "sid"); got != `Fix issue 12 (high priority) with high priority; all: 12 "high priority"; none: [] sid` {
		t.Errorf("command prompt = %q", got)
	}
	sk := Skill{Kind: KindSkill, Dir: "/skills/x", Body: "Read ${CLAUDE_SKILL_DIR}/ref.md"}
	if got := prompt(t, sk, "a b", ""); got != "Base directory for this skill: /skills/x\nRead /skills/x/ref.md\nARGUMENTS: a b" {
		t.Errorf("skill prompt = %q", got)
	}
	if got := prompt(t, sk, "", ""); strings.Contains(got, "ARGUMENTS") {
		t.Errorf("no arguments, yet %q", got)
	}
	for _, c := range []struct{ body, args, want string }{
		// Many digits; a word character after the digits is no placeholder.
		{"$10|$1x|$1_|$1.|$", "a b c d e f g h i j k", "k|$1x|$1_|b.|$"},
		// "\$" keeps a placeholder as written, without the backslash;
		// "\\$1" (an escaped backslash) does not.
		{`\$1 costs \$ARGUMENTS; \\$1; \$x`, "a b", `$1 costs $ARGUMENTS; \\b; \$x`},
		// Named arguments, the longer name first; $name[ and $namex are not it.
		{"$file and $filename; $file[0] $files", "x.go y.go", "x.go and y.go; $file[0] $files"},
		{"nothing used", "", "nothing used"},
	} {
		got := prompt(t, Skill{Kind: KindCommand, Body: c.body, ArgNames: []string{"file", "filename"}}, c.args, "")
		if got != c.want {
			t.Errorf("Prompt(%q, %q) = %q, want %q", c.body, c.args, got, c.want)
		}
	}
	if got := Words(`a 'b c' "d" e''f`); !reflect.DeepEqual(got, []string{"a", "b c", "d", "ef"}) {
		t.Errorf("Words = %q", got)
	}
}

func TestTool(t *testing.T) {
	rules, _ := perm.ParseRules([]string{"Bash(make:*)"})
	var granted []perm.Rule
	tl := NewTool([]Skill{{Name: "deploy", Kind: KindSkill, Description: "Deploys the app.", Dir: "/s/deploy", Body: "Run make deploy $ARGUMENTS", AllowedTools: rules}},
		"sid", func(sk Skill) { granted = append(granted, sk.AllowedTools...) })
	if d := tl.Description(); !strings.Contains(d, "- deploy: Deploys the app.\n") {
		t.Errorf("description does not list the skill:\n%s", d)
	}
	var schema map[string]any
	if err := json.Unmarshal(tl.Schema(), &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema: %v", err)
	}
	res, err := tl.Run(context.Background(), nil, json.RawMessage(`{"skill":"deploy","args":"prod"}`))
	if err != nil || res.IsError || res.Output != "Base directory for this skill: /s/deploy\nRun make deploy prod" {
		t.Errorf("Run = %+v %v", res, err)
	}
	if fmt.Sprint(granted) != "[Bash(make:*)]" {
		t.Errorf("granted %v", granted)
	}
	res, _ = tl.Run(context.Background(), nil, json.RawMessage(`{"skill":"nope"}`))
	if !res.IsError || !strings.Contains(res.Output, `unknown skill "nope": the skills are deploy`) {
		t.Errorf("unknown skill: %+v", res)
	}
	if tl.Subject(json.RawMessage(`{"skill":"deploy"}`)) != "deploy" || !tl.ReadOnly(nil) {
		t.Error("Subject or ReadOnly")
	}
}

// A skill is named by its folder, as Claude Code names it: its front
// matter name, any text, is a display name "/" also finds. A file without
// a description is described as Claude Code describes it.
func TestNamesAndDescriptions(t *testing.T) {
	proj := t.TempDir()
	write(t, filepath.Join(proj, ".claude/skills/pr-review/SKILL.md"), "---\nname: PR Review Helper\narguments: [pr, focus]\n---\n\n## Review a pull request\n\nReview $pr for $focus.")
	write(t, filepath.Join(proj, ".claude/skills/empty/SKILL.md"), "---\nname: empty\n---\n")
	write(t, filepath.Join(proj, ".claude/commands/long.md"), "\n   "+strings.Repeat("word ", 30)+"\nmore")
	write(t, filepath.Join(proj, ".claude/commands/hash.md"), "#nospace is no heading\n")
	write(t, filepath.Join(proj, ".claude/commands/blank.md"), "---\nargument-hint: x\n---\n")
	set, err := Load(Sources{ProjectRoot: proj})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(set.All()); got != "blank(project) empty(project) hash(project) long(project) pr-review(project)" {
		t.Fatalf("All = %s", got)
	}
	pr, ok := set.Lookup("PR Review Helper")
	if !ok || pr.Name != "pr-review" || pr.Description != "Review a pull request" || !pr.ModelInvocable {
		t.Errorf("by display name: %+v %v", pr, ok)
	}
	if got := prompt(t, pr, "42 security", ""); !strings.HasSuffix(got, "Review 42 for security.") {
		t.Errorf("named arguments: %q", got)
	}
	want := map[string]string{"empty": "Skill", "blank": "Custom command", "hash": "#nospace is no heading",
		"long": strings.TrimSpace(strings.Repeat("word ", 20))[:97] + "..."}
	for name, desc := range want {
		if sk, _ := set.Lookup(name); sk.Description != desc {
			t.Errorf("%s described %q, want %q", name, sk.Description, desc)
		}
	}
}

// A --plugin-dir plugin whose manifest names its commands (a folder, a
// file, one named with metadata) and adds a skill folder; commands/ is
// then not read, skills/ still is.
func TestPluginManifest(t *testing.T) {
	root := filepath.Join(t.TempDir(), "kit")
	write(t, filepath.Join(root, ".claude-plugin/plugin.json"), `{"name": "kit",
  "commands": {"hello": {"source": "./cmd/greet.md", "description": "Says hello", "allowedTools": ["Bash(echo:*)"]}},
  "skills": "./extra"}`)
	write(t, filepath.Join(root, "commands/ignored.md"), "not read")
	write(t, filepath.Join(root, "cmd/greet.md"), "---\ndescription: the file's\n---\nHello")
	write(t, filepath.Join(root, "skills/one/SKILL.md"), "---\ndescription: one\n---\none")
	write(t, filepath.Join(root, "extra/SKILL.md"), "---\nname: Two Words\ndescription: two\n---\ntwo")
	set, err := Load(Sources{Home: t.TempDir(), PluginDirs: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(set.All()); got != "kit:Two-Words(plugin kit) kit:hello(plugin kit) kit:one(plugin kit)" {
		t.Errorf("All = %s", got)
	}
	hello, _ := set.Lookup("kit:hello")
	if hello.Description != "Says hello" || !hello.ModelInvocable || len(hello.AllowedTools) != 1 {
		t.Errorf("hello = %+v", hello)
	}

	write(t, filepath.Join(root, ".claude-plugin/plugin.json"), `{"name": "kit", "commands": ["./cmd/greet.md", "./commands"]}`)
	set, err = Load(Sources{Home: t.TempDir(), PluginDirs: []string{root}})
	if got := names(set.All()); got != "kit:greet(plugin kit) kit:ignored(plugin kit) kit:one(plugin kit)" || err != nil {
		t.Errorf("All = %s (%v)", got, err)
	}
}

// prompt is sk.Prompt(args, sessionID), which must not fail.
func prompt(t *testing.T, sk Skill, args, sessionID string) string {
	t.Helper()
	got, err := sk.Prompt(args, sessionID)
	if err != nil {
		t.Fatalf("%s: Prompt: %v", sk.Name, err)
	}
	return got
}

// instructions is sk's body, which must be readable.
func instructions(t *testing.T, sk Skill) string {
	t.Helper()
	body, err := sk.Instructions()
	if err != nil {
		t.Fatalf("%s: %v", sk.Name, err)
	}
	return body
}

// Load reads the front matter; a skill's body is read when it is used,
// so the body it sends is the file's at that time, and a file gone since
// is an error naming it.
func TestBodyReadOnUse(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".claude/skills/later/SKILL.md")
	write(t, path, "---\ndescription: read on use\n---\nfirst body")
	cmd := filepath.Join(home, ".claude/commands/gone.md")
	write(t, cmd, "Gone soon")
	set, err := Load(Sources{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, "---\ndescription: read on use\n---\nsecond body")
	if err := os.Remove(cmd); err != nil {
		t.Fatal(err)
	}
	sk, _ := set.Lookup("later")
	if got := prompt(t, sk, "", ""); !strings.HasSuffix(got, "\nsecond body") || sk.Description != "read on use" {
		t.Errorf("later: %q (%q)", got, sk.Description)
	}
	gone, _ := set.Lookup("gone")
	if _, err := gone.Prompt("", ""); err == nil || !strings.Contains(err.Error(), cmd) || gone.Description != "Gone soon" {
		t.Errorf("gone: %v (%q)", err, gone.Description)
	}
}

// A skill folder may be a symbolic link; a file beside the folders is no
// skill.
func TestLinkedSkillFolder(t *testing.T) {
	home, shared := t.TempDir(), t.TempDir()
	write(t, filepath.Join(shared, "linked/SKILL.md"), "---\ndescription: through a link\n---\nbody")
	write(t, filepath.Join(home, ".claude/skills/stray.md"), "---\ndescription: not a skill\n---\n")
	if err := os.Symlink(filepath.Join(shared, "linked"), filepath.Join(home, ".claude/skills/linked")); err != nil {
		t.Fatal(err)
	}
	set, err := Load(Sources{Home: home})
	if got := names(set.All()); got != "linked(user)" || err != nil {
		t.Fatalf("All = %s (%v)", got, err)
	}
}

func TestProjectDirsFromCwdUpToTheRoot(t *testing.T) {
	for _, c := range []struct {
		cwd, root, home string
		want            string
	}{
		{"/r/a/b", "/r", "/h", "/r/a/b /r/a /r"},
		{"/r", "/r", "/h", "/r"},
		{"/elsewhere", "/r", "/h", "/r"},
		{"/h/r/a", "/h/r", "/h", "/h/r/a /h/r"},
		{"/h/a", "/", "/h", "/h/a"}, // never home or above it
		{"", "/r", "/h", "/r"},
	} {
		if got := strings.Join(projectDirs(c.cwd, c.root, c.home), " "); got != c.want {
			t.Errorf("projectDirs(%q, %q, %q) = %q, want %q", c.cwd, c.root, c.home, got, c.want)
		}
	}
}
