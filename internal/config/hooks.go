package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// HooksFileName is the name of a hooks file: beside the global config file,
// and in a project's .csa directory.
const HooksFileName = "hooks.toml"

// Hooks is a hooks file: commands csa runs around a run (what they are for
// and when each fires: internal/runhooks) and the prompt guards whose
// output is added to a run's prompt.
type Hooks struct {
	PreSession      []HookConfig  `toml:"pre_session"`
	PreRun          []HookConfig  `toml:"pre_run"`
	PostRun         []HookConfig  `toml:"post_run"`
	SessionComplete []HookConfig  `toml:"session_complete"`
	OnFailover      []HookConfig  `toml:"on_failover"`
	OnNeedsInput    []HookConfig  `toml:"on_needs_input"`
	OnOverlap       []HookConfig  `toml:"on_overlap"`
	PromptGuards    []GuardConfig `toml:"prompt_guard"`
}

// HookConfig is one hook: a command for /bin/sh -c, with {name} variables.
type HookConfig struct {
	Command string   `toml:"command"`
	Timeout Duration `toml:"timeout"` // "" for the default
}

// GuardConfig is one prompt guard: a command whose output is added to the
// prompt, cut at MaxBytes (0 for the default).
type GuardConfig struct {
	Command  string   `toml:"command"`
	Timeout  Duration `toml:"timeout"`
	MaxBytes int      `toml:"max_bytes"`
}

// MaxGuardBytes bounds a prompt guard's max_bytes.
const MaxGuardBytes = 1 << 20

// LoadedHooks is the merged hooks and the files they came from.
type LoadedHooks struct {
	Hooks   Hooks
	Sources []Source // global first, then project
}

// HooksGlobalPath is the global hooks file, beside the global config file;
// "" when that has no place.
func HooksGlobalPath() string {
	if p := GlobalPath(); p != "" {
		return filepath.Join(filepath.Dir(p), HooksFileName)
	}
	return ""
}

// HooksProjectPath is the hooks file of the project at root ("" for none).
func HooksProjectPath(root string) string {
	if root == "" {
		return ""
	}
	return filepath.Join(root, ".csa", HooksFileName)
}

// LoadHooks loads the global hooks file and that of the project at root.
func LoadHooks(root string) (*LoadedHooks, error) {
	return LoadHooksFiles(HooksGlobalPath(), HooksProjectPath(root))
}

// LoadHooksFiles reads the hooks files at globalPath and projectPath (either
// missing or "" for none). The project's hooks of an event run after the
// global ones: a project adds hooks, it cannot drop the user's. Problems
// are *Error values with file, line and key, like the config's.
func LoadHooksFiles(globalPath, projectPath string) (*LoadedHooks, error) {
	l := &LoadedHooks{}
	for _, src := range []Source{{Path: globalPath, Scope: ScopeGlobal}, {Path: projectPath, Scope: ScopeProject}} {
		if src.Path != "" {
			data, err := os.ReadFile(src.Path)
			switch {
			case err == nil:
				src.Exists = true
				var h Hooks
				if err := decodeStrict(data, &h); err != nil {
					return nil, decodeError(src.Path, data, err, reflect.TypeFor[Hooks]())
				}
				if ps := h.validate(); len(ps) > 0 {
					return nil, locateNth(src.Path, buildIndex(data), ps)
				}
				l.Hooks.add(h)
			case errors.Is(err, fs.ErrNotExist):
			default:
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return nil, &Error{Kind: KindRead, Path: src.Path, Msg: "cannot read hooks: " + err.Error(), Err: err}
			}
		}
		l.Sources = append(l.Sources, src)
	}
	return l, nil
}

func (h *Hooks) add(o Hooks) {
	h.PreSession = append(h.PreSession, o.PreSession...)
	h.PreRun = append(h.PreRun, o.PreRun...)
	h.PostRun = append(h.PostRun, o.PostRun...)
	h.SessionComplete = append(h.SessionComplete, o.SessionComplete...)
	h.OnFailover = append(h.OnFailover, o.OnFailover...)
	h.OnNeedsInput = append(h.OnNeedsInput, o.OnNeedsInput...)
	h.OnOverlap = append(h.OnOverlap, o.OnOverlap...)
	h.PromptGuards = append(h.PromptGuards, o.PromptGuards...)
}

// nthProblem is a problem of the n-th element (0-based) of an array of
// tables, placed at that element's header.
type nthProblem struct {
	problem
	n int
}

func (h *Hooks) validate() []nthProblem {
	var ps []nthProblem
	empty := func(table string, i int, cmd string) {
		if strings.TrimSpace(cmd) == "" {
			ps = append(ps, nthProblem{problem{KindValue, []string{table, "command"}, "a command is required"}, i})
		}
	}
	for table, hs := range map[string][]HookConfig{
		"pre_session": h.PreSession, "pre_run": h.PreRun, "post_run": h.PostRun,
		"session_complete": h.SessionComplete, "on_failover": h.OnFailover, "on_needs_input": h.OnNeedsInput,
		"on_overlap": h.OnOverlap,
	} {
		for i, hk := range hs {
			empty(table, i, hk.Command)
		}
	}
	for i, g := range h.PromptGuards {
		empty("prompt_guard", i, g.Command)
		if g.MaxBytes < 0 || g.MaxBytes > MaxGuardBytes {
			ps = append(ps, nthProblem{problem{KindValue, []string{"prompt_guard", "max_bytes"},
				fmt.Sprintf("%d is out of range 0..%d", g.MaxBytes, MaxGuardBytes)}, i})
		}
	}
	return ps
}

// locateNth places each problem at the n-th header of its array of tables
// (the first key that matches when the array is written inline).
func locateNth(path string, ix index, ps []nthProblem) error {
	errs := make([]*Error, 0, len(ps))
	for _, p := range ps {
		e := &Error{Kind: p.kind, Path: path, Key: joinKey(p.key), Msg: p.message()}
		table := joinKey(p.key[:1])
		seen := 0
		for _, ent := range ix {
			if ent.key == table {
				if seen == p.n {
					e.Line, e.Col = ent.keyPos.line, ent.keyPos.col
					break
				}
				seen++
			}
		}
		if e.Line == 0 {
			if ent, ok := ix.find(table); ok {
				e.Line, e.Col = ent.keyPos.line, ent.keyPos.col
			}
		}
		errs = append(errs, e)
	}
	return join(errs)
}
