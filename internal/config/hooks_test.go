package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestLoadHooksProjectAddsToGlobal(t *testing.T) {
	g, p := files(t, `
[[pre_run]]
command = "global-check"
timeout = "5s"
[[prompt_guard]]
command = "git status --short"
max_bytes = 100
`, `
[[pre_run]]
command = "project-check {session_id}"
[[post_run]]
command = "notify"
`)
	l, err := LoadHooksFiles(g, p)
	if err != nil {
		t.Fatal(err)
	}
	h := l.Hooks
	if len(h.PreRun) != 2 || h.PreRun[0].Command != "global-check" || h.PreRun[1].Command != "project-check {session_id}" {
		t.Fatalf("pre_run = %+v, want global then project", h.PreRun)
	}
	if h.PreRun[0].Timeout.Std() != 5*time.Second || h.PreRun[1].Timeout != 0 {
		t.Fatalf("timeouts = %v, %v", h.PreRun[0].Timeout, h.PreRun[1].Timeout)
	}
	if len(h.PostRun) != 1 || len(h.PromptGuards) != 1 || h.PromptGuards[0].MaxBytes != 100 {
		t.Fatalf("hooks = %+v", h)
	}
	if !l.Sources[0].Exists || !l.Sources[1].Exists {
		t.Fatalf("sources = %+v", l.Sources)
	}
}

func TestLoadHooksMissingFilesAreNoHooks(t *testing.T) {
	g, p := files(t, "", "")
	l, err := LoadHooksFiles(g, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l.Hooks.PreRun) + len(l.Hooks.PromptGuards); n != 0 || l.Sources[0].Exists || l.Sources[1].Exists {
		t.Fatalf("loaded %+v", l)
	}
}

func TestLoadHooksErrorsNameFileAndLine(t *testing.T) {
	for name, tc := range map[string]struct {
		file, want string
	}{
		"syntax":       {"[[pre_run]]\ncommand = \"x\n", `:2:`},
		"unknown key":  {"[[pre_run]]\ncommand = \"x\"\n\n[[post_run]]\ncomand = \"y\"\n", `:5:1: unknown key "post_run.comand"`},
		"wrong type":   {"[[pre_run]]\ncommand = 3\n", `:2:11: wrong type for "pre_run.command": expected a string, got an integer`},
		"bad timeout":  {"[[pre_run]]\ncommand = \"x\"\ntimeout = \"soon\"\n", `:3:11: invalid value for "pre_run.timeout"`},
		"no command":   {"[[pre_run]]\ncommand = \"x\"\n\n[[pre_run]]\ntimeout = \"1s\"\n", `:4:3: invalid value for "pre_run.command": a command is required`},
		"max_bytes":    {"[[prompt_guard]]\ncommand = \"x\"\nmax_bytes = -1\n", `:1:3: invalid value for "prompt_guard.max_bytes": -1 is out of range`},
		"unknown hook": {"[[pre_flight]]\ncommand = \"x\"\n", `:1:3: unknown key "pre_flight"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, p := files(t, "", tc.file)
			_, err := LoadHooksFiles("", p)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if got := err.Error(); !strings.Contains(got, p+tc.want) {
				t.Fatalf("err = %q, want it to hold %q", got, p+tc.want)
			}
		})
	}
}

func TestHooksTemplateRunsNothingAndEveryBlockLoads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hooks.toml")
	if err := os.WriteFile(path, []byte(HooksTemplate()), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := LoadHooksFiles("", path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Hooks, Hooks{}) {
		t.Errorf("the template sets hooks: %+v", l.Hooks)
	}
	on := regexp.MustCompile(`(?m)^# (\[\[[a-z_]+\]\]|[a-z_]+ = .*)$`).ReplaceAllString(HooksTemplate(), "$1")
	if err := os.WriteFile(path, []byte(on), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err = LoadHooksFiles("", path)
	if err != nil {
		t.Fatalf("uncommented template: %v\n%s", err, on)
	}
	h := l.Hooks
	for name, n := range map[string]int{"pre_session": len(h.PreSession), "pre_run": len(h.PreRun), "post_run": len(h.PostRun),
		"session_complete": len(h.SessionComplete), "on_failover": len(h.OnFailover), "on_needs_input": len(h.OnNeedsInput), "prompt_guard": len(h.PromptGuards)} {
		if n != 1 {
			t.Errorf("uncommented template has %d %s, want 1", n, name)
		}
	}
	if h.PreRun[0].Timeout.Std() != 10*time.Second || h.PromptGuards[0].MaxBytes != 16384 {
		t.Errorf("uncommented template: %+v", h)
	}
}
