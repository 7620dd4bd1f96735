package proc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the re-executed test binary start a `sleep 60` through
// Start (with DieWithParent set to the value after the colon), print the
// sleeper's pid and block until killed or its stdin closes.
const helperEnv = "CSA_PROC_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

func helper(mode string) int {
	p, err := Start(Spec{Path: "/bin/sleep", Args: []string{"60"}, DieWithParent: mode == "die:true"})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println(p.Pid)
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// procState is the state letter and process group of pid from
// /proc/PID/stat, parsed independently of groupOf; ok is false if the
// process is gone.
func procState(pid int) (state string, pgid, sid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	rest := string(b[bytes.LastIndexByte(b, ')')+2:])
	f := strings.Fields(rest) // state ppid pgrp session ...
	pgid, _ = strconv.Atoi(f[2])
	sid, _ = strconv.Atoi(f[3])
	return f[0], pgid, sid, true
}

// dead reports whether pid is gone or a zombie waiting for its reaper.
func dead(pid int) bool {
	st, _, _, ok := procState(pid)
	return !ok || st == "Z" || st == "X"
}

// waitDead waits, generously bounded, for pid to die.
func waitDead(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !dead(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is still alive", what, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill is a test cleanup for a pid that should be gone already.
func kill(t *testing.T, pid int) {
	t.Cleanup(func() {
		if pid > 1 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// readPid reads one line holding a pid from r, bounded.
func readPid(t *testing.T, r *bufio.Reader) int {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		s, _ := r.ReadString('\n')
		got <- strings.TrimSpace(s)
	}()
	select {
	case s := <-got:
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("expected a pid, read %q", s)
		}
		return pid
	case <-time.After(30 * time.Second):
		t.Fatal("no pid printed")
	}
	return 0
}

// startShell starts sh -c script with its stdout on a pipe.
func startShell(t *testing.T, script string, env ...string) (*Process, *bufio.Reader) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", script}, Env: env, Stdout: w})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		SignalGroup(p.PGID(), syscall.SIGKILL)
		p.Wait()
	})
	return p, bufio.NewReader(r)
}

func TestStartOwnProcessGroup(t *testing.T) {
	p, err := Start(Spec{Path: "/bin/sleep", Args: []string{"60"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Terminate(time.Second)
	_, pgid, sid, ok := procState(p.Pid)
	if !ok {
		t.Fatal("started process not in /proc")
	}
	if pgid != p.Pid || sid != p.Pid {
		t.Errorf("pid %d: pgid %d, session %d; want both equal to the pid", p.Pid, pgid, sid)
	}
	if p.PGID() != p.Pid {
		t.Errorf("PGID() = %d, want %d", p.PGID(), p.Pid)
	}
	if own := syscall.Getpgrp(); pgid == own {
		t.Errorf("child shares the test's process group %d", own)
	}
	if g := groupOf(p.Pid); g != p.Pid {
		t.Errorf("groupOf(%d) = %d", p.Pid, g)
	}
}

func TestStartSpec(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	p, err := Start(Spec{
		Path: "/bin/sh", Args: []string{"-c", `pwd; echo "$FOO"; cat; echo oops >&2; exit 7`},
		Env: []string{"FOO=bar baz"}, Dir: dir,
		Stdin: strings.NewReader("from stdin\n"), Stdout: &out, Stderr: &errb,
	})
	if err != nil {
		t.Fatal(err)
	}
	st := p.Wait()
	if st.ExitCode() != 7 {
		t.Errorf("exit code %d, want 7", st.ExitCode())
	}
	select {
	case <-p.Done():
	default:
		t.Error("Done not closed after Wait returned")
	}
	if want := dir + "\nbar baz\nfrom stdin\n"; out.String() != want {
		t.Errorf("stdout = %q, want %q", out.String(), want)
	}
	if errb.String() != "oops\n" {
		t.Errorf("stderr = %q", errb.String())
	}
	if p.Wait() != st {
		t.Error("a second Wait returned another state")
	}
}

func TestStartFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-program")
	p, err := Start(Spec{Path: path})
	if err == nil {
		p.Terminate(time.Second)
		t.Fatal("Start of a missing program succeeded")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the program", err)
	}
}

func TestTerminate(t *testing.T) {
	tests := []struct {
		name string
		// script prints the pid of a grandchild in the group once its
		// signal dispositions are set up
		script     string
		grace      time.Duration
		wantForced bool
	}{
		{"leader obeys SIGTERM", `sleep 60 & echo $!; wait`, 30 * time.Second, false},
		{"leader ignores SIGTERM", `trap "" TERM; sleep 60 & echo $!; wait`, 100 * time.Millisecond, true},
		{"leader gone, member ignores SIGTERM", `trap "" TERM; sleep 60 & echo $!`, 30 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, r := startShell(t, tt.script)
			child := readPid(t, r)
			kill(t, child)
			if _, pgid, _, ok := procState(child); !ok || pgid != p.Pid {
				t.Fatalf("grandchild %d: pgid %d, want %d", child, pgid, p.Pid)
			}
			done := make(chan bool, 1)
			go func() { done <- p.Terminate(tt.grace) }()
			var forced bool
			select {
			case forced = <-done:
			case <-time.After(time.Minute):
				t.Fatal("Terminate did not return")
			}
			if forced != tt.wantForced {
				t.Errorf("forced = %v, want %v", forced, tt.wantForced)
			}
			select {
			case <-p.Done():
			default:
				t.Error("Terminate returned before the leader was reaped")
			}
			waitDead(t, child, "grandchild in the group")
		})
	}
}

func TestSignalGroup(t *testing.T) {
	for _, pg := range []int{-5, 0, 1} {
		if err := SignalGroup(pg, syscall.Signal(0)); err == nil {
			t.Errorf("SignalGroup(%d) = nil, want a refusal", pg)
		}
	}
	p, err := Start(Spec{Path: "/bin/sleep", Args: []string{"60"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("Signal(0) to a live group: %v", err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st := p.Wait()
	if ws := st.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("wait status %v, want killed by SIGKILL", st)
	}
	if err := SignalGroup(p.Pid, syscall.SIGTERM); err != nil {
		t.Errorf("SignalGroup of a vanished group = %v, want nil", err)
	}
}

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("Alive(self) = false")
	}
	for _, pid := range []int{0, -1} {
		if Alive(pid) {
			t.Errorf("Alive(%d) = true", pid)
		}
	}
	p, err := Start(Spec{Path: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	if Alive(p.Pid) {
		t.Errorf("Alive(%d) = true after it was reaped", p.Pid)
	}
}

func TestDieWithParent(t *testing.T) {
	tests := []struct {
		die      bool
		wantDead bool
	}{{true, true}, {false, false}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("DieWithParent=%v", tt.die), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=die:%v", helperEnv, tt.die))
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			child := readPid(t, bufio.NewReader(out))
			kill(t, child)
			if dead(child) {
				t.Fatal("child died before its parent")
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if tt.wantDead {
				waitDead(t, child, "child of a SIGKILLed parent")
				return
			}
			// Control: without the flag the child is orphaned, not killed.
			if dead(child) {
				t.Error("child without DieWithParent died with its parent")
			}
		})
	}
}

func TestTaggedMembers(t *testing.T) {
	const tag = "CSA_PROC_TEST_TAG=abc"
	env := []string{"PATH=/usr/bin:/bin", tag}
	p, r := startShell(t, `sleep 60 & echo $!; env -u CSA_PROC_TEST_TAG sleep 60 & echo $!; wait`, env...)
	tagged, untagged := readPid(t, r), readPid(t, r)
	kill(t, tagged)
	kill(t, untagged)
	// A tagged process in another group must not be found.
	q, _ := startShell(t, `exec sleep 60`, env...)

	want := []int{p.Pid, tagged}
	sort.Ints(want)
	// The untagged sleeper carries the tag until env has exec'd sleep (and
	// its environment reads empty while it execs): wait until both
	// sleepers are sleep, then for the set to settle.
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range []int{tagged, untagged} {
		for e, _ := Stat(pid); e.Comm != "sleep"; e, _ = Stat(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d is %q, not yet sleep", pid, e.Comm)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	var got []int
	for {
		got = TaggedMembers(p.PGID(), tag)
		sort.Ints(got)
		if fmt.Sprint(got) == fmt.Sprint(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("TaggedMembers = %v, want %v (leader %d, tagged %d, untagged %d, other group %d)",
			got, want, p.Pid, tagged, untagged, q.Pid)
	}
	for _, other := range []string{"CSA_PROC_TEST_TAG=ab", "CSA_PROC_TEST_TAG=abcd", "CSA_PROC_TEST_TAG", "abc"} {
		if got := TaggedMembers(p.PGID(), other); len(got) != 0 {
			t.Errorf("TaggedMembers(%q) = %v, want none", other, got)
		}
	}
	if got := TaggedMembers(q.PGID(), tag); len(got) != 1 || got[0] != q.Pid {
		t.Errorf("TaggedMembers of the other group = %v, want [%d]", got, q.Pid)
	}

	if n := KillTagged(p.PGID(), tag); n != 2 {
		t.Errorf("KillTagged = %d, want 2", n)
	}
	waitDead(t, tagged, "tagged member")
	p.Wait()
	if dead(untagged) {
		t.Error("KillTagged killed a member without the tag")
	}
	if dead(q.Pid) {
		t.Error("KillTagged killed a process of another group")
	}
}

func TestGroupOfOddCommand(t *testing.T) {
	// The comm field may hold ") " and digits; parsing must start after
	// the last parenthesis.
	dir := t.TempDir()
	odd := filepath.Join(dir, "x) S 1 2 3 4")
	if err := os.Symlink("/bin/sleep", odd); err != nil {
		t.Fatal(err)
	}
	p, err := Start(Spec{Path: odd, Args: []string{"60"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Terminate(time.Second)
	if g := groupOf(p.Pid); g != p.Pid {
		t.Errorf("groupOf(%d) with comm %q = %d", p.Pid, filepath.Base(odd), g)
	}
	if g := groupOf(1 << 30); g != -1 {
		t.Errorf("groupOf of a missing pid = %d, want -1", g)
	}
}

func TestOutput(t *testing.T) {
	out, err := Output(context.Background(), "/bin/sh", "-c", "echo out; echo err >&2")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); !strings.Contains(s, "out\n") || !strings.Contains(s, "err\n") {
		t.Errorf("Output = %q, want stdout and stderr combined", s)
	}
	if _, err := Output(context.Background(), "/bin/sh", "-c", "exit 3"); err == nil {
		t.Error("Output of a failing program returned no error")
	} else {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("Output error = %v, want exit status 3", err)
		}
	}
}

func TestOutputTimeoutKillsGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The grandchild ignores SIGTERM and holds the output pipe.
		out, err := Output(ctx, "/bin/sh", "-c", `trap "" TERM; sleep 60 & echo $!; wait`)
		done <- result{out, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Output did not return after its context ended")
	}
	if res.err == nil {
		t.Fatal("Output returned no error after its context ended")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(res.out)))
	if err != nil {
		t.Fatalf("output %q holds no pid", res.out)
	}
	kill(t, pid)
	waitDead(t, pid, "grandchild of a timed-out Output")
}

// A tagged process caught in the middle of an execve (its environment reads
// empty then) is never taken for an untagged one: HasTag says it has not
// settled, and asking again finds the tag.
func TestHasTagDuringExec(t *testing.T) {
	const tag = "CSA_PROC_TEST_TAG=exec"
	unsettled := 0
	for i := 0; i < 100; i++ {
		c := exec.Command("/bin/sh", "-c", "exec sleep 5")
		c.Env = []string{"PATH=/usr/bin:/bin", tag}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		for {
			tagged, settled := HasTag(c.Process.Pid, []string{tag})
			if !settled {
				unsettled++
				continue
			}
			if !tagged {
				c.Process.Kill()
				c.Wait()
				t.Fatalf("process %d (run %d) was found untagged", c.Process.Pid, i)
			}
			if e, _ := Stat(c.Process.Pid); e.Comm == "sleep" {
				break
			}
		}
		c.Process.Kill()
		c.Wait()
	}
	t.Logf("%d reads caught an execve", unsettled)
	if tagged, settled := HasTag(os.Getpid(), []string{"CSA_PROC_TEST_NOT=set"}); tagged || !settled {
		t.Errorf("HasTag(self, absent tag) = %v, %v; want false, true", tagged, settled)
	}
}
