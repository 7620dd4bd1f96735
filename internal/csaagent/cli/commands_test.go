package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestReviewWithoutCSA: /review when csa is neither beside csa-agent nor
// on PATH fails with a message saying so.
func TestReviewWithoutCSA(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var stdout, stderr bytes.Buffer
	s := &session{o: &options{outputFormat: "text"}, io: IO{Stdout: &stdout, Stderr: &stderr, Cwd: t.TempDir()}}
	if code := s.review(context.Background(), "--reviewers 1"); code != exitFailed {
		t.Errorf("exit %d", code)
	}
	if got := stderr.String(); !strings.Contains(got, "csa-agent: /review: csa is neither beside") || !strings.Contains(got, "nor on PATH") {
		t.Errorf("stderr %q", got)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q", stdout.String())
	}
}
