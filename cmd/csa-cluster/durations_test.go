package main

import (
	"context"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// TestDurationFlags: csa-cluster's duration flags read their values with
// csa's one parser: a negative duration is a usage error naming the flag
// and the value, before any connection (issue 23).
func TestDurationFlags(t *testing.T) {
	const id = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	for _, tc := range []struct {
		name string
		run  func(context.Context, *env, []string) error
		args []string
		want string
	}{
		{"wait", runWait, []string{"-timeout", "-3s", id}, `invalid value "-3s" for flag -timeout: a duration cannot be negative`},
		{"kill", runKill, []string{"-grace=-1s", id}, `invalid value "-1s" for flag -grace: a duration cannot be negative`},
		{"wait", runWait, []string{"-timeout", "soon", id}, `invalid value "soon" for flag -timeout: want a duration such as 90s, 10m or 1h30m`},
	} {
		t.Setenv("CSA_CONFIG_HOME", t.TempDir())
		err := tc.run(context.Background(), &env{}, tc.args)
		if _, exit := cmdutil.Classify(err); exit != cmdutil.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v (exit %d), want exit 2 and %q", tc.name, tc.args, err, exit, tc.want)
		}
	}
}
