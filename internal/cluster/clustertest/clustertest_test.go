package clustertest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The harness's version is the one go.mod pins (and scripts/nats-server.sh
// builds).
func TestVersionPinned(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	mod, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "github.com/nats-io/nats-server/v2 "+Version+"\n") {
		t.Fatalf("go.mod does not pin github.com/nats-io/nats-server/v2 %s", Version)
	}
}

// Three real servers form a cluster whose JetStream takes a 3-replica
// stream, and a SIGKILLed node is gone.
func TestThreeNodes(t *testing.T) {
	start := time.Now()
	c := Start(t, 3)
	t.Logf("3-node cluster ready in %v", time.Since(start))
	for _, n := range c.Nodes {
		if err := syscall.Kill(n.cmd.Process.Pid, 0); err != nil {
			t.Fatalf("%s is not running: %v", n.Name, err)
		}
	}
	c.Kill(2)
	if c.Nodes[2].cmd.ProcessState == nil {
		t.Fatal("node 3 still running after Kill")
	}
	// The two left keep a quorum.
	if err := c.WaitReplicas(2, 30*time.Second); err != nil {
		for _, n := range c.Nodes[:2] {
			b, _ := os.ReadFile(filepath.Join(n.Dir, "server.log"))
			t.Logf("%s:\n%s", n.Name, tail(string(b)))
		}
		t.Fatalf("two of three nodes: %v", err)
	}
}

// A missing nats-server fails with the command that builds it.
func TestMissingBinarySaysHowToBuild(t *testing.T) {
	t.Setenv("CSA_AGENTS_CACHE", t.TempDir())
	_, err := Binary()
	if err == nil || !strings.Contains(err.Error(), BuildCommand) {
		t.Fatalf("got %v, want an error naming %q", err, BuildCommand)
	}
}

func tail(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "Error trying to connect to route") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return strings.Join(lines, "\n")
}
