package perm_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/tool"
	"github.com/csa-dev/csa/internal/csaagent/tools"
)

func mustRules(t *testing.T, s ...string) []perm.Rule {
	t.Helper()
	r, err := perm.ParseRules(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPolicy(t *testing.T) {
	cwd, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	os.Symlink(outside, filepath.Join(cwd, "out"))
	allow := mustRules(t, "Bash(git diff:*)", "Bash(npm test)", "Bash(go test:*)", "Edit(src/**)", "WebFetch(domain:go.dev)", "KillShell")
	deny := mustRules(t, "Bash(rm:*)", "Read(./secrets/**)", "Edit(*.lock)", "WebFetch(domain:evil.org)")

	type c struct {
		tool  string
		input string
		allow bool
		why   string // in the reason
	}
	edit := func(p string) string { return `{"file_path":"` + p + `","old_string":"a","new_string":"b"}` }
	bash := func(cmd string) string { b, _ := json.Marshal(map[string]string{"command": cmd}); return string(b) }
	common := []c{
		{"Bash", bash("rm -rf /"), false, "denied by the permission rule Bash(rm:*)"},
		{"Bash", bash("ls && rm x"), false, "Bash(rm:*)"},
		{"Bash", bash("echo $(rm x)"), false, "Bash(rm:*)"},
		{"Read", `{"file_path":"secrets/key"}`, false, "Read(./secrets/**)"},
		{"Grep", `{"pattern":"x","path":"secrets"}`, false, "Read(./secrets/**)"},
		{"Write", `{"file_path":"go.lock","content":""}`, false, "Edit(*.lock)"},
		{"WebFetch", `{"url":"https://a.evil.org/x","prompt":"p"}`, false, "WebFetch(domain:evil.org)"},
	}
	modes := map[perm.Mode][]c{
		perm.Default: {
			{"Read", `{"file_path":"a.go"}`, true, "read-only"},
			{"Bash", bash("git status"), true, "read-only"},
			{"Bash", bash("git diff HEAD"), true, "read-only"},
			{"Bash", bash("git diff HEAD > x.patch"), false, "needs permission"},
			{"Bash", bash("git diff --stat | tee out"), false, "the rule Bash(tee out) would"},
			{"Bash", bash("npm test"), true, "Bash(npm test)"},
			{"Bash", bash("npm test && go test ./..."), true, "Bash(npm test), Bash(go test:*)"},
			{"Bash", bash("npm test && make"), false, "the rule Bash(make) would allow it"},
			{"Bash", bash("go test ./... > /tmp/x"), false, "needs permission"},
			{"Bash", bash("go test ./... 2>&1"), true, "Bash(go test:*)"},
			{"Bash", bash("npm install"), false, "the rule Bash(npm install) would allow it"},
			{"Edit", edit("src/a/b.go"), true, "Edit(src/**)"},
			{"MultiEdit", `{"file_path":"src/x.go","edits":[]}`, true, "Edit(src/**)"},
			{"Edit", edit("main.go"), false, "the rule Edit(./main.go) would allow it"},
			{"Write", `{"file_path":"/etc/x","content":""}`, false, "Edit(/etc/x)"},
			{"WebFetch", `{"url":"https://pkg.go.dev/x","prompt":"p"}`, true, "read-only"},
			{"KillShell", `{"shell_id":"bash_1"}`, true, "KillShell"},
			{"ExitPlanMode", `{"plan":"x"}`, true, "read-only"},
		},
		perm.AcceptEdits: {
			{"Edit", edit("main.go"), true, "acceptEdits"},
			{"Write", `{"file_path":"new/dir/f","content":""}`, true, "acceptEdits"},
			{"Edit", edit(filepath.Join(outside, "f")), false, "needs permission"},
			{"Edit", edit("out/f"), false, "needs permission"}, // a symlink out of the roots
			{"Bash", bash("make"), false, "Bash(make)"},
			{"Bash", bash("git diff"), true, "read-only"},
			{"Bash", bash("git diff --output=x"), true, "Bash(git diff:*)"},
		},
		perm.Plan: {
			{"Read", `{"file_path":"a.go"}`, true, "plan mode"},
			{"Bash", bash("git log"), true, "plan mode"},
			{"Bash", bash("git diff HEAD"), true, "plan mode"},
			{"Bash", bash("npm test"), false, "plan mode is read-only"},
			{"Edit", edit("src/a.go"), false, "ExitPlanMode"},
			{"TodoWrite", `{"todos":[]}`, true, "plan mode"},
			{"Task", `{"prompt":"p","subagent_type":"Explore","description":"d"}`, true, "plan mode"},
			{"ExitPlanMode", `{"plan":"x"}`, true, "plan mode"},
			{"KillShell", `{"shell_id":"bash_1"}`, false, "plan mode"},
		},
		perm.BypassPermissions: {
			{"Bash", bash("make install"), true, "bypass"},
			{"Edit", edit("/etc/passwd"), true, "bypass"},
		},
	}
	for mode, cases := range modes {
		p := perm.NewPolicy(mode, allow, deny, cwd, nil)
		for _, tt := range append(common, cases...) {
			tl, ok := tools.ByName(tt.tool)
			if !ok {
				t.Fatal(tt.tool)
			}
			d := p.Check(tl, json.RawMessage(tt.input))
			if d.Allow != tt.allow || !strings.Contains(d.Reason, tt.why) {
				t.Errorf("%s: %s %s = %+v; want allow=%v, reason with %q", mode, tt.tool, tt.input, d, tt.allow, tt.why)
			}
			// Only a call that no rule allows is a person's to grant: one a
			// rule or plan mode denies is not.
			if wantAsk := !tt.allow && strings.Contains(d.Reason, "needs permission"); d.Ask != wantAsk {
				t.Errorf("%s: %s %s: Ask = %v, want %v", mode, tt.tool, tt.input, d.Ask, wantAsk)
			}
		}
	}
}

func TestPolicyModeRuntime(t *testing.T) {
	p := perm.NewPolicy(perm.Default, nil, nil, t.TempDir(), nil)
	w, _ := tools.ByName("Write")
	in := json.RawMessage(`{"file_path":"f","content":""}`)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { // concurrent checks while the mode changes
			defer wg.Done()
			for range 100 {
				p.Check(w, in)
			}
		}()
	}
	p.SetMode(perm.Plan)
	p.SetMode(perm.AcceptEdits)
	wg.Wait()
	if p.Mode() != perm.AcceptEdits || !p.Check(w, in).Allow {
		t.Errorf("mode %s", p.Mode())
	}
	p.SetMode(perm.Plan)
	if d := p.Check(w, in); d.Allow || !strings.Contains(d.Reason, "ExitPlanMode") {
		t.Errorf("plan: %+v", d)
	}
}

var _ tool.Tool = (*tools.Read)(nil)

// TestGrant: granted rules allow like allow rules until Revoke; deny rules
// and plan mode still win.
func TestGrant(t *testing.T) {
	cwd := t.TempDir()
	bash, _ := tools.ByName("Bash")
	call := func(cmd string) json.RawMessage { b, _ := json.Marshal(map[string]string{"command": cmd}); return b }
	p := perm.NewPolicy(perm.Default, nil, mustRules(t, "Bash(rm:*)"), cwd, nil)
	if d := p.Check(bash, call("touch made")); d.Allow {
		t.Fatal("allowed before any grant")
	}
	p.Grant(mustRules(t, "Bash(touch:*)", "Bash(rm:*)"))
	if d := p.Check(bash, call("touch made")); !d.Allow || !strings.Contains(d.Reason, "Bash(touch:*)") {
		t.Fatalf("granted call: %+v", d)
	}
	if d := p.Check(bash, call("rm made")); d.Allow {
		t.Fatal("a grant overrode a deny rule")
	}
	p.SetMode(perm.Plan)
	if d := p.Check(bash, call("touch made")); d.Allow {
		t.Fatal("a grant overrode plan mode")
	}
	p.SetMode(perm.Default)
	p.Revoke()
	if d := p.Check(bash, call("touch made")); d.Allow {
		t.Fatal("allowed after Revoke")
	}
}
