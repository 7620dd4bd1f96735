package main

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHubIdleExitNegative: --idle-exit reads its value with csa's one
// duration parser: a negative one is refused (exit 2, the flag and the
// value named) before the hub listens; it was taken as "not given" and
// the hub served (issue 23). The bound only ends a hub that serves. The
// wording is cobra's (pflag's) since csa-mcp moved from the flag package
// to cobra (issue 24); it was "invalid value "-5s" for flag -idle-exit".
func TestHubIdleExitNegative(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "csa-mcp"), "hub", "--socket", filepath.Join(w.dir, "hub.sock"), "--idle-exit", "-5s")
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), `csa-mcp hub: invalid argument "-5s" for "--idle-exit" flag: a duration cannot be negative`) {
		t.Fatalf("want exit 2 naming --idle-exit and -5s, got %v:\n%s", err, out)
	}
}
