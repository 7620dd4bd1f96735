package keeper

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The test binary is csa for the keepers the tests start.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case Command:
			os.Exit(Main(os.Args[2:]))
		case DaemonCommand:
			os.Exit(DaemonMain(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// bound is how long a test waits for a condition (the machine may be busy).
const bound = 20 * time.Second

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// victim is a run's leftover: it ignores SIGHUP, leads a session of its
// own and carries tag.
type victim struct {
	pid  int
	done chan struct{}
}

func startVictim(t *testing.T, tag string) *victim {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `trap "" HUP; exec sleep 60`)
	cmd.Env = []string{"PATH=/usr/bin:/bin", tag}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	v := &victim{pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() { cmd.Wait(); close(v.done) }()
	t.Cleanup(func() { syscall.Kill(v.pid, syscall.SIGKILL) })
	// Wait until the shell has exec'd sleep with the tag in its environment.
	waitFor(t, "the victim to start", func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(v.pid) + "/cmdline")
		return len(b) > 5 && string(b[:5]) == "sleep"
	})
	return v
}

func (v *victim) dead() bool {
	select {
	case <-v.done:
		return true
	default:
		return false
	}
}

func tagFor(t *testing.T) string {
	return fmt.Sprintf("CSA_KEEPER_TEST=%s-%d", t.Name(), time.Now().UnixNano())
}

func socketIn(t *testing.T) string {
	dir, err := os.MkdirTemp("/tmp", "keeper-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, SocketName)
}

// startDaemonProc starts a daemon on sock and waits until it answers.
func startDaemonProc(t *testing.T, sock string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], DaemonCommand, sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	waitFor(t, "the daemon to listen", func() bool {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return cmd
}

func (k *Keeper) conn() (net.Conn, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.w.(net.Conn)
	return c, ok
}

// die is the supervisor's death as its keeper sees it: its end closes
// without "done".
func (k *Keeper) die() {
	k.Ready()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.released = true // so that watch does not take over
	if k.w != nil {
		k.w.Close()
	}
}

func TestDaemonSweepsARunWhoseSupervisorDied(t *testing.T) {
	sock := socketIn(t)
	startDaemonProc(t, sock)
	tag := tagFor(t)
	v := startVictim(t, tag)
	k := Start(Config{Exe: os.Args[0], Socket: sock})
	k.Tag(tag)
	if _, ok := k.conn(); !ok {
		t.Fatal("the run did not connect to the daemon")
	}
	k.die()
	waitFor(t, "the daemon to kill the run's leftover", v.dead)
}

func TestDaemonLeavesAReleasedRunAlone(t *testing.T) {
	tag := tagFor(t)
	v := startVictim(t, tag)
	supervisor, daemon := socketPair(t)
	go func() {
		fmt.Fprintf(supervisor, "tag %s\npgid %d\ndone\n", tag, v.pid)
		supervisor.Close()
	}()
	keep(daemon) // returns once the run is released or swept
	if v.dead() {
		t.Fatal("a released run's process was killed")
	}

	dying, daemon2 := socketPair(t)
	go func() {
		fmt.Fprintf(dying, "tag %s\n", tag)
		dying.Close()
	}()
	keep(daemon2)
	waitFor(t, "the sweep of a run whose supervisor died", v.dead)
}

func socketPair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

// A daemon that dies during a run hands the run to a keeper of its own,
// which has heard all that was said.
func TestOwnKeeperTakesOverFromADeadDaemon(t *testing.T) {
	sock := socketIn(t)
	d := startDaemonProc(t, sock)
	tag := tagFor(t)
	v := startVictim(t, tag)
	k := Start(Config{Exe: os.Args[0], Socket: sock})
	k.Tag(tag)
	if _, ok := k.conn(); !ok {
		t.Fatal("the run did not connect to the daemon")
	}
	d.Process.Kill()
	waitFor(t, "a keeper of the run's own", func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		_, own := k.w.(*os.File)
		return own
	})
	if v.dead() {
		t.Fatal("the run's process died with the daemon")
	}
	k.die()
	waitFor(t, "the run's own keeper to kill its leftover", v.dead)
}

// With no daemon, a run keeps itself and starts the daemon for the next.
func TestNoDaemonARunKeepsItselfAndStartsOne(t *testing.T) {
	sock := socketIn(t)
	tag := tagFor(t)
	v := startVictim(t, tag)
	k := Start(Config{Exe: os.Args[0], Socket: sock, StartDaemon: true})
	k.Tag(tag)
	if _, ok := k.conn(); ok {
		t.Fatal("connected to a daemon that was never started")
	}
	waitFor(t, "the daemon started for the next run", func() bool {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	t.Cleanup(func() { os.Remove(sock) }) // the daemon quits when its socket goes
	k.die()
	waitFor(t, "the run's own keeper to kill its leftover", v.dead)
}

func TestOneDaemonPerSocket(t *testing.T) {
	sock := socketIn(t)
	first := startDaemonProc(t, sock)
	second := exec.Command(os.Args[0], DaemonCommand, sock)
	if err := second.Run(); err != nil {
		t.Fatalf("a second daemon: %v", err)
	}
	if err := first.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the first daemon is gone: %v", err)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("the first daemon no longer answers: %v", err)
	}
	c.Close()
}

func TestDaemonQuitsWhenItsSocketGoes(t *testing.T) {
	sock := socketIn(t)
	cmd := exec.Command(os.Args[0], DaemonCommand, sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitFor(t, "the daemon to listen", func() bool {
		_, err := os.Stat(sock)
		return err == nil
	})
	os.Remove(sock)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("daemon: %v", err)
		}
	case <-time.After(bound):
		cmd.Process.Kill()
		t.Fatal("the daemon outlived its socket")
	}
}
