package lock_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/lock"
)

// helperEnv tells the re-executed test binary to act as a lock holder
// instead of running tests: "hold:PATH" takes the lock on PATH, "adopt"
// adopts the lock inherited as fd 3. Either prints a ready line and keeps
// the lock until its stdin is closed.
const helperEnv = "CSA_LOCK_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

func helper(mode string) int {
	var h *lock.Holder
	var err error
	switch {
	case strings.HasPrefix(mode, "hold:"):
		h, err = lock.Acquire(strings.TrimPrefix(mode, "hold:"))
	case strings.HasPrefix(mode, "own:"), strings.HasPrefix(mode, "own-forking:"):
		return owner(mode)
	case mode == "adopt":
		h, err = lock.Adopt(3, "inherited.lock")
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	h.Release()
	return 0
}

// holder is a helper process holding a lock.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startHolder runs the helper in mode and waits until it reports the lock
// taken.
func startHolder(t *testing.T, mode string, extra ...*os.File) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	cmd.ExtraFiles = extra
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s != "ready" {
			t.Fatalf("lock helper (%s) said %q", mode, s)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("lock helper (%s) did not report ready", mode)
	}
	return h
}

// stop makes the helper release its lock and exit, and waits for it.
func (h *holder) stop(t *testing.T) {
	t.Helper()
	h.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("lock helper: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("lock helper did not exit")
	}
}

func held(t *testing.T, path string) bool {
	t.Helper()
	h, err := lock.Held(path)
	if err != nil {
		t.Fatalf("Held(%s): %v", path, err)
	}
	return h
}

func TestHeldMissingAndFree(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.lock")
	if held(t, missing) {
		t.Error("Held of a missing file = true")
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Held created the lock file: %v", err)
	}
	free := filepath.Join(dir, "free.lock")
	if err := os.WriteFile(free, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // Held must not keep the lock it probed with
		if held(t, free) {
			t.Fatalf("Held of a free lock = true (probe %d)", i)
		}
	}
	h, err := lock.Acquire(free)
	if err != nil {
		t.Fatalf("Acquire after Held: %v", err)
	}
	h.Release()
}

func TestHeldByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "supervisor.lock")
	h := startHolder(t, "hold:"+path)

	if !held(t, path) {
		t.Error("Held = false while another process holds the lock")
	}
	if a, err := lock.Acquire(path); err == nil {
		a.Release()
		t.Error("Acquire succeeded while another process holds the lock")
	} else if !strings.Contains(err.Error(), path) {
		t.Errorf("Acquire error %q does not name the path", err)
	}
	l := lock.New(path)
	if ok, err := l.TryLock(); err != nil || ok {
		t.Errorf("TryLock = %v, %v; want false, nil", ok, err)
	}
	err := l.LockTimeout(context.Background(), 50*time.Millisecond)
	if !errors.Is(err, lock.ErrTimeout) {
		t.Errorf("LockTimeout = %v, want ErrTimeout", err)
	}

	h.stop(t)
	if held(t, path) {
		t.Error("Held = true after the holder exited")
	}
	a, err := lock.Acquire(path)
	if err != nil {
		t.Fatalf("Acquire after the holder exited: %v", err)
	}
	a.Release()
}

func TestHeldAfterHolderKilled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "supervisor.lock")
	h := startHolder(t, "hold:"+path)
	if !held(t, path) {
		t.Fatal("Held = false while another process holds the lock")
	}
	h.cmd.Process.Signal(syscall.SIGKILL)
	h.cmd.Wait()
	if held(t, path) {
		t.Error("Held = true after the holder was SIGKILLed: the kernel drops flocks of dead processes")
	}
}

func TestLockTimeoutWaitsForRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.lock")
	h := startHolder(t, "hold:"+path)
	got := make(chan error, 1)
	l := lock.New(path)
	go func() { got <- l.LockTimeout(context.Background(), time.Minute) }()
	h.stop(t)
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("LockTimeout = %v after the holder released", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("LockTimeout did not return")
	}
	if !held(t, path) {
		t.Error("Held = false while this process holds the lock through LockTimeout")
	}
	l.Unlock()
	if held(t, path) {
		t.Error("Held = true after Unlock")
	}
}

func TestLockTimeoutContextCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.lock")
	a, err := lock.Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := lock.New(path).LockTimeout(ctx, time.Minute); err == nil {
		t.Error("LockTimeout with a cancelled context took a held lock")
	}
}

func TestInProcessExclusion(t *testing.T) {
	// flock belongs to the open file, so two Locks in one process exclude
	// each other; that is what Store.Update relies on.
	path := filepath.Join(t.TempDir(), "state.lock")
	a, b := lock.New(path), lock.New(path)
	if ok, err := a.TryLock(); err != nil || !ok {
		t.Fatalf("first TryLock = %v, %v", ok, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("lock file mode = %v, want 0600", m)
	}
	if ok, err := b.TryLock(); err != nil || ok {
		t.Fatalf("second TryLock = %v, %v; want false", ok, err)
	}
	if err := b.LockTimeout(context.Background(), 20*time.Millisecond); !errors.Is(err, lock.ErrTimeout) {
		t.Errorf("LockTimeout = %v, want ErrTimeout", err)
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(); err != nil || !ok {
		t.Fatalf("TryLock after Unlock = %v, %v", ok, err)
	}
	b.Unlock()
}

func TestAcquireRelease(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "supervisor.lock")
	h, err := lock.Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file: %v, %v; want mode 0600", fi, err)
	}
	if _, err := lock.Acquire(path); err == nil {
		t.Error("second Acquire in the same process succeeded")
	}
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	h2, err := lock.Acquire(path)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	h2.Release()
	if _, err := lock.Acquire(filepath.Join(dir, "missing", "x.lock")); err == nil {
		t.Error("Acquire in a missing directory succeeded")
	}
}

func TestAdoptInheritedLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "supervisor.lock")
	h, err := lock.Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	child := startHolder(t, "adopt", h.File) // fd 3 in the child
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	if !held(t, path) {
		t.Fatal("Held = false after the parent released: the adopting child must keep the lock")
	}
	if a, err := lock.Acquire(path); err == nil {
		a.Release()
		t.Fatal("Acquire succeeded while the adopting child holds the lock")
	}
	child.stop(t)
	if held(t, path) {
		t.Error("Held = true after the adopting child exited")
	}
}

func TestAdoptRejects(t *testing.T) {
	path := filepath.Join(t.TempDir(), "supervisor.lock")
	h, err := lock.Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	// A descriptor of the same file but another open file description is
	// not the promised lock: flock on it conflicts with h.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if a, err := lock.Adopt(uintptr(fd), "other"); err == nil {
		a.Release()
		t.Error("Adopt of a descriptor that does not hold the lock succeeded")
	}
	if a, err := lock.Adopt(^uintptr(0), "invalid"); err == nil {
		a.Release()
		t.Error("Adopt of fd -1 succeeded")
	}
	// A copy of the holder's own descriptor shares its lock: re-asserting
	// it succeeds.
	dup, err := syscall.Dup(int(h.File.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	a, err := lock.Adopt(uintptr(dup), "dup")
	if err != nil {
		t.Fatalf("Adopt of a copy of the held descriptor: %v", err)
	}
	a.Release()
}
