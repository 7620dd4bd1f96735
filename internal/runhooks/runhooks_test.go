package runhooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/config"
)

func TestExpandQuotesEveryValue(t *testing.T) {
	v := Vars{SessionID: "01ABC", Model: "it's'; touch pwned; '", ProjectRoot: "/a dir/$(x)"}
	got := Expand("echo {event} {session_id} {model} {project_root} {nope} ${session_id} awk '{print $1}'", PreRun, v)
	want := `echo 'pre_run' '01ABC' 'it'\''s'\''; touch pwned; '\''' '/a dir/$(x)' {nope} ${session_id} awk '{print $1}'`
	if got != want {
		t.Fatalf("Expand =\n%s\nwant\n%s", got, want)
	}
}

func TestFireRunsInOrderWithVariablesAndEnv(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	s := &Set{Hooks: map[Event][]Hook{PostRun: {
		{Command: "echo first {status} {model} >> " + log, Timeout: 10 * time.Second},
		{Command: `echo "second $CSA_HOOK_EVENT $CSA_STATUS $CSA_MODEL $PWD" >> ` + log, Timeout: 10 * time.Second},
	}}}
	v := Vars{Status: "completed", Model: "a b'; touch " + filepath.Join(dir, "pwned") + "; '"}
	rs := s.Fire(context.Background(), PostRun, v, Env{Base: os.Environ(), Dir: dir})
	if len(rs) != 2 || !rs[0].OK() || !rs[1].OK() {
		t.Fatalf("results = %+v", rs)
	}
	b, _ := os.ReadFile(log)
	want := "first completed " + v.Model + "\nsecond post_run completed " + v.Model + " " + dir + "\n"
	if string(b) != want {
		t.Fatalf("log =\n%q\nwant\n%q", b, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("a value ran as shell syntax")
	}
	if Refusal(rs) != "" {
		t.Fatalf("refusal of successful hooks: %q", Refusal(rs))
	}
}

func TestFireKillsAHungHookAtItsTimeoutWithWhatItLeft(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	s := &Set{Hooks: map[Event][]Hook{PreRun: {
		{Command: "sleep 60 & echo $! > " + pidFile + "; echo waiting; wait", Timeout: 300 * time.Millisecond},
		{Command: "echo after", Timeout: 10 * time.Second},
	}}}
	start := time.Now()
	rs := s.Fire(context.Background(), PreRun, Vars{}, Env{Base: os.Environ(), Dir: dir})
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("took %s", el)
	}
	if len(rs) != 2 || !rs[0].TimedOut || rs[0].ExitCode != -1 || rs[0].Output != "waiting\n" || !rs[1].OK() {
		t.Fatalf("results = %+v", rs)
	}
	if msg := Refusal(rs); !strings.Contains(msg, "pre_run hook `sleep 60") || !strings.Contains(msg, "timed out after 300ms: waiting") {
		t.Fatalf("refusal = %q", msg)
	}
	b, _ := os.ReadFile(pidFile)
	pid := strings.TrimSpace(string(b))
	if _, err := os.Stat("/proc/" + pid); pid == "" || err == nil {
		// The group was SIGKILLed and the sleeper, our child's child,
		// is reaped by init: it may take a moment to vanish.
		deadline := time.Now().Add(10 * time.Second)
		for err == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			_, err = os.Stat("/proc/" + pid)
		}
		if pid == "" || err == nil {
			t.Fatalf("the hook's child %q outlived it", pid)
		}
	}
}

func TestRefusalNamesTheFailedHookAndItsOutput(t *testing.T) {
	s := &Set{Hooks: map[Event][]Hook{PreRun: {{Command: "echo not today >&2; exit 4", Timeout: 10 * time.Second}}}}
	rs := s.Fire(context.Background(), PreRun, Vars{}, Env{Base: os.Environ(), Dir: t.TempDir()})
	if got, want := Refusal(rs), "pre_run hook `echo not today >&2; exit 4` exited with status 4: not today"; got != want {
		t.Fatalf("refusal = %q, want %q", got, want)
	}
}

func TestPreludeAddsOutputInOrderCutAndFailed(t *testing.T) {
	s := &Set{
		Hooks: map[Event][]Hook{PreSession: {
			{Command: "true", Timeout: 10 * time.Second},
			{Command: "echo context for {session_id}", Timeout: 10 * time.Second},
		}},
		Guards: []Guard{
			{Command: "printf 0123456789abcdef", Timeout: 10 * time.Second, MaxBytes: 10},
			{Command: "echo broken; exit 2", Timeout: 10 * time.Second, MaxBytes: 100},
		},
	}
	got, rs := s.Prelude(context.Background(), "the task\n", true, Vars{SessionID: "S1"}, Env{Base: os.Environ(), Dir: t.TempDir()})
	want := "the task\n\n" +
		"--- csa pre_session hook: echo context for 'S1' ---\ncontext for S1\n\n" +
		"--- csa prompt guard: printf 0123456789abcdef ---\n0123456789\n[csa: output cut at 10 bytes]\n\n" +
		"--- csa prompt guard: echo broken; exit 2 ---\nbroken\n[csa: exited with status 2]\n"
	if got != want {
		t.Fatalf("prompt =\n%s\nwant\n%s", got, want)
	}
	if len(rs) != 4 || rs[0].AddedBytes != 0 || rs[1].Event != PreSession || rs[2].Event != "" || !rs[2].Truncated || rs[3].ExitCode != 2 || rs[2].AddedBytes == 0 {
		t.Fatalf("results = %+v", rs)
	}
	if Refusal(rs[:2]) != "" {
		t.Fatal("a successful pre_session refused")
	}
	// A resumed session's turn gets the guards only.
	got, rs = s.Prelude(context.Background(), "next", false, Vars{}, Env{Base: os.Environ(), Dir: t.TempDir()})
	if len(rs) != 2 || strings.Contains(got, "pre_session") {
		t.Fatalf("resumed turn: %q %+v", got, rs)
	}
}

func TestFromConfigDefaultsAndSwitches(t *testing.T) {
	h := config.Hooks{
		PreRun:       []config.HookConfig{{Command: "a"}, {Command: "b", Timeout: config.Duration(time.Second)}},
		PromptGuards: []config.GuardConfig{{Command: "g"}},
	}
	s := FromConfig(h, false, false)
	if s.Hooks[PreRun][0].Timeout != DefaultTimeout || s.Hooks[PreRun][1].Timeout != time.Second || s.Guards[0].MaxBytes != DefaultGuardBytes {
		t.Fatalf("set = %+v", s)
	}
	if s := FromConfig(h, true, false); s.Has(PreRun) || len(s.Guards) != 1 {
		t.Fatalf("--no-hooks: %+v", s)
	}
	if s := FromConfig(h, false, true); !s.Has(PreRun) || len(s.Guards) != 0 {
		t.Fatalf("--no-guards: %+v", s)
	}
	if s := FromConfig(h, true, true); s != nil {
		t.Fatalf("both off: %+v", s)
	}
}

func TestBoundSumsTimeoutsAndKillGraces(t *testing.T) {
	s := &Set{Hooks: map[Event][]Hook{PreRun: {{Command: "a", Timeout: time.Second}, {Command: "b", Timeout: 3 * time.Second}}}}
	if got, want := s.Bound(PreRun), 4*time.Second+2*killGrace; got != want {
		t.Fatalf("Bound(pre_run) = %s, want %s", got, want)
	}
	if got := s.Bound(PostRun); got != 0 {
		t.Fatalf("Bound(post_run) = %s, want 0", got)
	}
	if got := (*Set)(nil).Bound(PreRun); got != 0 {
		t.Fatalf("nil Bound = %s, want 0", got)
	}
}
