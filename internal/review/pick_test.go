package review

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/config"
)

var (
	claude   = Candidate{Tool: agents.ClaudeCode, Family: agents.FamilyAnthropic}
	codex    = Candidate{Tool: agents.Codex, Family: agents.FamilyOpenAI}
	gemini   = Candidate{Tool: agents.GeminiCLI, Family: agents.FamilyGoogle}
	ocOpenAI = Candidate{Tool: agents.Opencode, Model: "openai/gpt-5", Family: agents.FamilyOpenAI}
	ocAnon   = Candidate{Tool: agents.Opencode}
)

func tools(cs []Candidate) []agents.Tool {
	out := make([]agents.Tool, len(cs))
	for i, c := range cs {
		out[i] = c.Tool
	}
	return out
}

func TestPickReviewers(t *testing.T) {
	all := []Candidate{claude, codex, gemini, ocOpenAI}
	tests := []struct {
		name   string
		cands  []Candidate
		caller agents.Tool
		family string
		n      int
		want   []agents.Tool
	}{
		{"no caller: one per family", all, "", "", 3, []agents.Tool{"claude-code", "codex", "gemini-cli"}},
		{"caller's family excluded", all, "claude-code", "anthropic", 2, []agents.Tool{"codex", "gemini-cli"}},
		{"other tools of a family before repeats", all, "claude-code", "anthropic", 4, []agents.Tool{"codex", "gemini-cli", "opencode", "codex"}},
		{"opencode of the caller's family excluded", all, "codex", "openai", 3, []agents.Tool{"claude-code", "gemini-cli", "claude-code"}},
		{"reuse when too few families", []Candidate{claude, codex}, "gemini-cli", "google", 3, []agents.Tool{"claude-code", "codex", "claude-code"}},
		{"unknown family: excluded under a caller", []Candidate{codex, ocAnon}, "claude-code", "anthropic", 2, []agents.Tool{"codex", "codex"}},
		{"unknown family: its own without a caller", []Candidate{codex, ocAnon}, "", "", 2, []agents.Tool{"codex", "opencode"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PickReviewers(tc.cands, nil, []Party{{"caller", tc.caller, tc.family}}, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tools(got), tc.want) {
				t.Fatalf("got %v, want %v", tools(got), tc.want)
			}
		})
	}
}

func TestPickReviewersNone(t *testing.T) {
	_, err := PickReviewers([]Candidate{claude, ocAnon}, []string{"codex (disabled)"}, []Party{{"caller", "claude-code", "anthropic"}}, 2)
	var nt *NoToolError
	if !errors.As(err, &nt) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"claude-code, family anthropic", "codex (disabled)", "claude-code (family anthropic)", "opencode (family unknown)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %q", err, want)
		}
	}
}

func TestPickDebaters(t *testing.T) {
	p, c, err := PickDebaters([]Candidate{claude, codex, gemini}, nil, "", "")
	if err != nil || p.Tool != "claude-code" || c.Tool != "codex" {
		t.Fatalf("%v %v %v", p, c, err)
	}
	// Families other than the caller's first.
	p, c, err = PickDebaters([]Candidate{claude, codex, gemini}, nil, "claude-code", "anthropic")
	if err != nil || p.Tool != "codex" || c.Tool != "gemini-cli" {
		t.Fatalf("%v %v %v", p, c, err)
	}
	// The caller's family when there is no other pair; never one family twice.
	p, c, err = PickDebaters([]Candidate{claude, codex, ocOpenAI}, nil, "codex", "openai")
	if err != nil || p.Tool != "claude-code" || c.Tool != "codex" {
		t.Fatalf("%v %v %v", p, c, err)
	}
	if _, _, err := PickDebaters([]Candidate{codex, ocOpenAI, ocAnon}, nil, "", ""); err == nil {
		t.Fatal("one known family made a debate")
	}
}

func TestCandidates(t *testing.T) {
	bin := t.TempDir()
	prog := filepath.Join(bin, "agent")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	set := func(name string, fn func(*config.ToolConfig)) {
		tc := cfg.Tools[name]
		fn(&tc)
		cfg.Tools[name] = tc
	}
	set("claude-code", func(tc *config.ToolConfig) { tc.Path = prog })
	set("codex", func(tc *config.ToolConfig) { tc.Path, tc.Enabled = prog, false })
	set("gemini-cli", func(tc *config.ToolConfig) { tc.Path = filepath.Join(bin, "missing") })
	set("opencode", func(tc *config.ToolConfig) { tc.Path, tc.Model = prog, "google/gemini-2.5" })
	set("csa-agent", func(tc *config.ToolConfig) { tc.Path, tc.Model = prog, "openai/gpt-5" })
	cands, skipped := Candidates(&cfg)
	want := []Candidate{claude, {Tool: agents.Opencode, Model: "google/gemini-2.5", Family: agents.FamilyGoogle},
		{Tool: agents.CSAAgent, Model: "openai/gpt-5", Family: agents.FamilyOpenAI}}
	if !reflect.DeepEqual(cands, want) {
		t.Fatalf("candidates %+v", cands)
	}
	if !reflect.DeepEqual(skipped, []string{"codex (disabled)", "gemini-cli (not installed)"}) {
		t.Fatalf("skipped %v", skipped)
	}
}

func TestPickAvoidsEveryParty(t *testing.T) {
	all := []Candidate{claude, codex, gemini, ocOpenAI}
	both := []Party{{"caller", "codex", "openai"}, {"author", "claude-code", "anthropic"}}
	got, err := PickReviewers(all, nil, both, 2)
	if err != nil || !reflect.DeepEqual(tools(got), []agents.Tool{"gemini-cli", "gemini-cli"}) {
		t.Fatalf("reviewers %v, %v", tools(got), err)
	}
	r, err := PickOther(all, nil, "resolver", both)
	if err != nil || r.Tool != "gemini-cli" {
		t.Fatalf("resolver %v, %v", r, err)
	}
	// A party of unknown family rules out only the unknown ones.
	r, err = PickOther([]Candidate{ocAnon, codex}, nil, "resolver", []Party{{"author", "opencode", ""}})
	if err != nil || r.Tool != "codex" {
		t.Fatalf("resolver %v, %v", r, err)
	}
	_, err = PickOther([]Candidate{claude, codex}, []string{"gemini-cli (disabled)"}, "resolver", both)
	want := "no resolver of another model family than the caller's and the author's (the caller is codex, family openai; the author is claude-code, family anthropic): gemini-cli (disabled), claude-code (family anthropic), codex (family openai)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
}
