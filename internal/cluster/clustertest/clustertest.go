// Package clustertest starts a real NATS cluster for tests: three
// nats-server processes with JetStream on 127.0.0.1, each with its own
// store, routed to each other. The nats-server program is built from the
// module at the version go.mod pins, into csa's cache outside git (`make
// nats-server`); a missing one fails the test, saying how to build it.
package clustertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/toolcache"
)

// Version is the nats-server go.mod pins (TestVersionPinned keeps them
// equal).
const Version = "v2.15.2"

// BuildCommand builds it.
const BuildCommand = "make nats-server"

// Binary is the built nats-server, or an error saying how to build it.
func Binary() (string, error) {
	dir, err := toolcache.Dir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "nats-server", Version, "nats-server")
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("nats-server %s is not built at %s: run `%s`", Version, bin, BuildCommand)
	}
	return bin, nil
}

// Cluster is a running cluster.
type Cluster struct {
	Nodes  []*Node
	probes int
	addr   string
	name   string // the servers' cluster name, unique to this cluster
}

// Node is one server process.
type Node struct {
	Name        string
	Port        int
	ClusterPort int
	Dir         string
	cmd         *exec.Cmd
	done        chan struct{}
}

// URL is the node's client URL.
func (n *Node) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(n.Port) }

// URL lists every node's client URL, comma-separated, as [cluster] url
// takes it.
func (c *Cluster) URL() string {
	urls := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		urls[i] = n.URL()
	}
	return strings.Join(urls, ",")
}

// Start starts a cluster of n servers, waits until JetStream accepts a
// stream with n replicas, and stops the servers when the test ends.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	return StartOn(t, n, "127.0.0.1")
}

// StartOn is Start with the servers' client ports listening on addr
// ("0.0.0.0": reachable from a network namespace of a test); URL still
// names 127.0.0.1.
func StartOn(t testing.TB, n int, addr string) *Cluster {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	// Ports are found free and then given to the servers, so another test's
	// process can take one in between: a server that cannot listen exits,
	// and the cluster is made again on other ports.
	for attempt := 1; ; attempt++ {
		c := &Cluster{addr: addr, name: clusterName()}
		err := c.start(t, bin, filepath.Join(base, strconv.Itoa(attempt)), n)
		if err == nil {
			t.Cleanup(c.Stop)
			return c
		}
		c.Stop()
		var exited *exitedError
		if !errors.As(err, &exited) || attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("making the cluster again: %v", err)
	}
}

// clusterName is a name no other test's cluster has: servers of clusters
// with different names never route to each other, even when one is given
// a port another had a moment before.
func clusterName() string {
	return fmt.Sprintf("csa-test-%d-%d-%d", os.Getpid(), clusters.Add(1), time.Now().UnixNano()%1e6)
}

var clusters atomic.Int64

func (c *Cluster) start(t testing.TB, bin, base string, n int) error {
	for i := range n {
		c.Nodes = append(c.Nodes, &Node{Name: fmt.Sprintf("n%d", i+1), Port: freePort(t), ClusterPort: freePort(t),
			Dir: filepath.Join(base, fmt.Sprintf("n%d", i+1))})
	}
	var routes []string
	for _, nd := range c.Nodes {
		routes = append(routes, "nats-route://127.0.0.1:"+strconv.Itoa(nd.ClusterPort))
	}
	for _, nd := range c.Nodes {
		if err := nd.start(bin, c.addr, c.name, strings.Join(routes, ",")); err != nil {
			return err
		}
	}
	// A bound for failures only: on a machine busy with other builds a
	// cluster has taken over 30 s to elect its JetStream meta leader.
	return c.WaitReady(2 * time.Minute)
}

// exitedError: a server of the cluster exited while it was being made.
type exitedError struct{ node, log string }

func (e *exitedError) Error() string {
	return fmt.Sprintf("nats-server %s exited while the cluster was made (log %s)", e.node, e.log)
}

// exited returns an error naming a server that has exited, if any.
func (c *Cluster) exited() error {
	for _, n := range c.Nodes {
		if n.done == nil {
			continue
		}
		select {
		case <-n.done:
			return &exitedError{n.Name, filepath.Join(n.Dir, "server.log")}
		default:
		}
	}
	return nil
}

func (n *Node) start(bin, addr, name, routes string) error {
	if err := os.MkdirAll(n.Dir, 0o700); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(n.Dir, "server.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	n.cmd = exec.Command(bin, "--server_name", n.Name, "--addr", addr, "--port", strconv.Itoa(n.Port),
		"--jetstream", "--store_dir", filepath.Join(n.Dir, "js"),
		"--cluster_name", name, "--cluster", "nats://127.0.0.1:"+strconv.Itoa(n.ClusterPort), "--routes", routes)
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := n.cmd.Start(); err != nil {
		return fmt.Errorf("start nats-server %s: %w", n.Name, err)
	}
	n.done = make(chan struct{})
	go func() { n.cmd.Wait(); close(n.done) }()
	return nil
}

// WaitReady waits until JetStream creates (and deletes) a stream with a
// replica on every node: the meta leader is elected and every node
// takes part.
func (c *Cluster) WaitReady(within time.Duration) error { return c.WaitReplicas(len(c.Nodes), within) }

// WaitReplicas waits until JetStream takes a stream with that many
// replicas (after a node is lost, a new meta leader is elected first).
func (c *Cluster) WaitReplicas(replicas int, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		if last = c.probeWith(replicas); last == nil {
			return nil
		}
		if err := c.exited(); err != nil && replicas == len(c.Nodes) {
			return err
		}
		time.Sleep(50 * time.Millisecond) // a retry interval, not a wait for readiness
	}
	return fmt.Errorf("the %d-node cluster was not ready within %v: %v (logs in %s)", len(c.Nodes), within, last, filepath.Dir(c.Nodes[0].Dir))
}

// probeWith creates and deletes a stream with that many replicas.
func (c *Cluster) probeWith(replicas int) error {
	nc, err := nats.Connect(c.URL(), nats.Timeout(time.Second))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// A name of its own each time: a probe that timed out may leave a
	// stream placed on a node since lost, stalled without quorum.
	c.probes++
	name := fmt.Sprintf("READY_PROBE_%d", c.probes)
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{"csa.test." + name},
		Replicas: replicas, Storage: jetstream.MemoryStorage}); err != nil {
		return err
	}
	return js.DeleteStream(ctx, name)
}

// Kill SIGKILLs node i and waits for it to be gone.
func (c *Cluster) Kill(i int) {
	n := c.Nodes[i]
	if n.cmd != nil && n.cmd.Process != nil {
		n.cmd.Process.Kill()
		<-n.done
	}
}

// Stop stops every node: SIGTERM, SIGKILL after 5 s.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		if n.cmd != nil && n.cmd.Process != nil {
			n.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	for _, n := range c.Nodes {
		if n.done == nil {
			continue
		}
		select {
		case <-n.done:
		case <-time.After(5 * time.Second):
			n.cmd.Process.Kill()
			<-n.done
		}
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
