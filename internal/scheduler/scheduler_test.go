package scheduler

import (
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/config"
)

func TestParseSpec(t *testing.T) {
	aliases := map[string]string{"fast": "codex/openai/gpt-5/low"}
	for _, tt := range []struct {
		in                              string
		tool, provider, model, thinking string
		arg, key                        string
	}{
		{"codex", "codex", "", "", "", "", "openai"},
		{"codex/gpt-5", "codex", "", "gpt-5", "", "gpt-5", "openai"},
		{"claude-code/anthropic/sonnet", "claude-code", "anthropic", "sonnet", "", "sonnet", "anthropic"},
		{"fast", "codex", "openai", "gpt-5", "low", "gpt-5", "openai"},
		{"opencode/csa/scripted/high", "opencode", "csa", "scripted", "high", "csa/scripted", "csa"},
	} {
		sp, err := ParseSpec(tt.in, aliases)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if sp.Tool != tt.tool || sp.Provider != tt.provider || sp.Model != tt.model || sp.Thinking != tt.thinking ||
			sp.ModelArg() != tt.arg || sp.ProviderKey() != tt.key || sp.Raw != tt.in {
			t.Errorf("%s: %+v arg %q key %q", tt.in, sp, sp.ModelArg(), sp.ProviderKey())
		}
	}
	for _, bad := range []string{"kodex", "codex/a/b/c/d", ""} {
		if _, err := ParseSpec(bad, nil); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Round-robin rotation is shared: concurrent callers each get the next
// start, none is lost.
func TestRoundRobinShared(t *testing.T) {
	s := New(t.TempDir(), time.Now)
	tier := config.TierConfig{Models: []string{"codex/a/1", "claude-code/b/2", "gemini-cli/c/3"}, Strategy: "round-robin"}
	var mu sync.Mutex
	firsts := map[string]int{}
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			specs, err := s.Order("t", tier, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			firsts[specs[0].Raw]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, m := range tier.Models {
		if firsts[m] != 10 {
			t.Errorf("%s led %d of 30 rotations, want 10 (%v)", m, firsts[m], firsts)
		}
	}
}

func TestCooldowns(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(t.TempDir(), func() time.Time { return now })
	if err := s.Cooldown("openai", time.Minute); err != nil {
		t.Fatal(err)
	}
	tier := config.TierConfig{Models: []string{"codex/openai/m", "claude-code/anthropic/m"}}
	specs, _ := s.Order("t", tier, nil)
	if specs[0].Tool != "claude-code" || specs[1].Tool != "codex" {
		t.Errorf("a cooling provider must go last: %v", specs)
	}
	now = now.Add(2 * time.Minute)
	if c, _ := s.Cooldowns(); len(c) != 0 {
		t.Errorf("expired cooldowns still listed: %v", c)
	}
	specs, _ = s.Order("t", tier, nil)
	if specs[0].Tool != "codex" {
		t.Errorf("after the cooldown the priority order is back: %v", specs)
	}
}

func TestRetryAfter(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"Suggested retry after 1s.":                            time.Second,
		"429 Too Many Requests: retry after 30s":               30 * time.Second,
		"rate limited, Retry-After: 250ms":                     250 * time.Millisecond,
		"please retry after 2.5 seconds":                       2500 * time.Millisecond,
		`{"error":{"type":"rate_limit_error"}} retry_after 12`: 12 * time.Second,
	} {
		if got, ok := RetryAfter(in); !ok || got != want {
			t.Errorf("RetryAfter(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	if _, ok := RetryAfter("429 Too Many Requests"); ok {
		t.Error("found a retry-after where there is none")
	}
}
