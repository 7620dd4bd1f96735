package statusline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/claudesettings"
)

func TestRunShowsTrimmedOutputOnSuccessOnly(t *testing.T) {
	dir := t.TempDir()
	run := func(command string) string {
		c := Command{Setting: claudesettings.StatusLine{Type: "command", Command: command}, Dir: dir, Environ: os.Environ()}
		return c.Run(context.Background(), Input{SessionID: "s1", Model: Model{ID: "m"}})
	}
	if got := run(`cat > in.json; printf '  a  \n\n \n b\n'`); got != "a\nb" {
		t.Fatalf("output %q", got)
	}
	data, err := os.ReadFile(filepath.Join(dir, "in.json"))
	if err != nil || !strings.Contains(string(data), `"session_id":"s1"`) || !strings.Contains(string(data), `"model":{"id":"m"`) {
		t.Fatalf("stdin %s %v", data, err)
	}
	if got := run(`echo shown; exit 1`); got != "" {
		t.Fatalf("a failing command showed %q", got)
	}
	if got := Padded("a\nb", 2); got != "  a\n  b" {
		t.Fatalf("padded %q", got)
	}
}

func TestStatusRerunsOnlyWhenTheStateChanged(t *testing.T) {
	dir := t.TempDir()
	s := NewStatus(Command{Setting: claudesettings.StatusLine{Type: "command", Command: `echo x >> runs; wc -l < runs`},
		Dir: dir, Environ: os.Environ()})
	in := func() Input { return Input{} }
	for i, step := range []struct {
		key   string
		want  string
		fresh bool
	}{{"a", "1", true}, {"a", "1", false}, {"b", "2", true}, {"b", "2", false}} {
		got, fresh := s.Update(context.Background(), step.key, in)
		if strings.TrimSpace(got) != step.want || fresh != step.fresh {
			t.Fatalf("step %d: %q %v, want %q %v", i, got, fresh, step.want, step.fresh)
		}
	}
}

func TestContextWindow(t *testing.T) {
	cw := NewContextWindow(&Usage{InputTokens: 1000, CacheReadInputTokens: 500, CacheCreationInputTokens: 495, OutputTokens: 7}, 10000)
	if cw.TotalInputTokens != 1995 || cw.TotalOutputTokens != 7 || *cw.UsedPercentage != 20 || *cw.RemainingPercentage != 80 {
		t.Fatalf("%+v", cw)
	}
	if cw := NewContextWindow(nil, 10000); cw.UsedPercentage != nil || cw.ContextWindowSize != 10000 {
		t.Fatalf("%+v", cw)
	}
}
