package clustercmd

import (
	"testing"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/errline"
	"github.com/csa-dev/csa/internal/proc"
)

// csa-cluster's failure is reported with its error line's code and
// message and its exit status, whichever way csa started it.
func TestFailure(t *testing.T) {
	for _, c := range []struct {
		ended     proc.Ended
		code, msg string
		exit      int
	}{
		{proc.Ended{ExitCode: 2, Stderr: "warning\n" + string(errline.Marshal("not_found", "no remote session X")) + "\n"}, "not_found", "no remote session X", 2},
		{proc.Ended{ExitCode: 1, Stderr: "csa: cluster: connect to nats://x: refused\n"}, "cluster_failed", "cluster: connect to nats://x: refused", 1},
		{proc.Ended{ExitCode: -1}, "cluster_failed", "csa-cluster ps ended (exit status -1) and said nothing", cmdutil.ExitFailed},
	} {
		err := failure("ps", &c.ended)
		if code, exit := cmdutil.Classify(err); code != c.code || exit != c.exit || err.Error() != c.msg {
			t.Errorf("%+v: %s, exit %d, %q; want %s, %d, %q", c.ended, code, exit, err, c.code, c.exit, c.msg)
		}
	}
}
