package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/session"
)

// ipRun runs ip(8) and fails the test with its output.
func ipRun(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v: %s (a worker's network cut needs root and ip netns)", strings.Join(args, " "), err, out)
	}
}

// A worker's network cut: the worker runs in a network namespace of its
// own, joined to the host by a veth pair, the servers listening on the
// host's end; the host's end is set down mid-run (no reset, packets just
// stop, as when a cable is pulled). The session reads crashed, "worker
// lost", within 10 s of the cut, as csa wait on another machine sees it.
func TestWorkerNetworkCut(t *testing.T) {
	c := clustertest.StartOn(t, 3, "0.0.0.0")
	proj := projectDir(t)

	pid := os.Getpid()
	ns, hostIf, nsIf := fmt.Sprintf("csa-t%d", pid), fmt.Sprintf("csah%d", pid), fmt.Sprintf("csan%d", pid)
	subnet := fmt.Sprintf("10.%d.%d.", 200+pid%50, (pid/50)%250)
	hostIP, nsIP := subnet+"1", subnet+"2"
	ipRun(t, "netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	ipRun(t, "link", "add", hostIf, "type", "veth", "peer", "name", nsIf)
	t.Cleanup(func() { exec.Command("ip", "link", "del", hostIf).Run() })
	ipRun(t, "link", "set", nsIf, "netns", ns)
	ipRun(t, "addr", "add", hostIP+"/30", "dev", hostIf)
	ipRun(t, "link", "set", hostIf, "up")
	ipRun(t, "netns", "exec", ns, "ip", "addr", "add", nsIP+"/30", "dev", nsIf)
	ipRun(t, "netns", "exec", ns, "ip", "link", "set", nsIf, "up")
	ipRun(t, "netns", "exec", ns, "ip", "link", "set", "lo", "up")

	caller := newMachine(t, "caller", c.URL())
	var urls []string
	for _, nd := range c.Nodes {
		urls = append(urls, "nats://"+hostIP+":"+strconv.Itoa(nd.Port))
	}
	cut := newMachine(t, "cut", strings.Join(urls, ","))
	other := newMachine(t, "other", c.URL())
	other.startWorker(t, proj, "--name", "other")

	cmd := exec.Command("ip", "netns", "exec", ns, filepath.Join(bin, "csa"), "worker", "--name", "cut", "--labels", "role=cut")
	cmd.Dir, cmd.Env = proj, cut.env
	wlog := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = wlog, wlog
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if t.Failed() {
			t.Logf("cut worker's log:\n%s", wlog.String())
		}
	})
	waitWorkers(t, caller, proj, 2)

	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--labels", "role=cut", "--tool", "codex", "sleep 60s; echo never"))
	var localID string
	waitFor(t, 30*time.Second, "the run running on the worker in its namespace", func() bool {
		r := recordsByID(t, caller, proj)[id]
		localID = r.Remote.LocalID
		return r.Status == session.Running && r.Remote.Worker == "cut"
	})
	t.Cleanup(func() { cut.csaCode(proj, "kill", localID) }) // the local run goes on, detached

	ipRun(t, "link", "set", hostIf, "down")
	cutAt := time.Now()
	out, code, stderr := caller.csaCode(proj, "wait", "--json", "--timeout", "30s", id)
	lostAfter := time.Since(cutAt)
	if code != 1 {
		t.Fatalf("csa wait: exit %d, want 1 (the session failed): %s %s", code, out, stderr)
	}
	var waited struct {
		Sessions []struct{ State, Reason, Worker string }
	}
	if err := json.Unmarshal([]byte(out), &waited); err != nil || len(waited.Sessions) != 1 {
		t.Fatalf("csa wait --json: %v: %s", err, out)
	}
	if s := waited.Sessions[0]; s.State != "crashed" || s.Reason != cluster.WorkerLost || s.Worker != "cut" {
		t.Fatalf("after the cut: %+v, want crashed, %q, on cut", s, cluster.WorkerLost)
	}
	// The bound is 10 s; a test does not time it on a busy
	// machine (BenchmarkClusterWorkerLost measures it).
	t.Logf("crashed, worker lost, %v after the network cut", lostAfter)
	// The worker was alive all along: only its network was gone.
	select {
	case <-done:
		t.Fatalf("the cut worker exited: %s", wlog.String())
	default:
	}

	// The network back, the worker finds its run crashed by the cluster
	// and stops the local run that went on meanwhile, publishing nothing
	// more for it.
	ipRun(t, "link", "set", hostIf, "up")
	waitFor(t, 60*time.Second, "the cut worker's local run stopped", func() bool {
		out, _, _ := cut.csaCode(proj, "inspect", "--json", localID)
		var st struct{ State string }
		return json.Unmarshal([]byte(out), &st) == nil && st.State == string(session.Killed)
	})
	if r := recordsByID(t, caller, proj)[id]; r.Status != session.Crashed || r.Reason != cluster.WorkerLost {
		t.Errorf("the record after the worker came back: %s, %q", r.Status, r.Reason)
	}
	if !strings.Contains(wlog.String(), "stopping its local run "+localID) {
		t.Errorf("the cut worker's log does not say it stopped %s:\n%s", localID, wlog.String())
	}
}
