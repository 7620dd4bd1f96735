package main

import (
	"bytes"
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
		args []string
		want string
	}{
		{[]string{"wait", "--timeout", "-3s", id}, `invalid argument "-3s" for "--timeout" flag: a duration cannot be negative`},
		{[]string{"kill", "--grace=-1s", id}, `invalid argument "-1s" for "--grace" flag: a duration cannot be negative`},
		{[]string{"wait", "--timeout", "soon", id}, `invalid argument "soon" for "--timeout" flag: want a duration such as 90s, 10m or 1h30m`},
	} {
		t.Setenv("CSA_CONFIG_HOME", t.TempDir())
		var out, errOut bytes.Buffer
		exit := execute(context.Background(), &env{in: strings.NewReader(""), out: &out, errOut: &errOut}, tc.args)
		if exit != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tc.args, exit, errOut.String(), tc.want)
		}
	}
}
