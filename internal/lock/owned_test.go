package lock_test

import (
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

// owner is the helper for "own:PATH" (take the owned lock, keep it until
// stdin closes, release it and live on until killed) and
// "own-forking:PATH" (take it and start programs without end, as a runner
// starts its runs).
func owner(mode string) int {
	kind, path, _ := strings.Cut(mode, ":")
	o, err := lock.TakeOwned(path)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	if kind == "own-forking" {
		for range 2 {
			go func() {
				for {
					exec.Command("/bin/true").Run()
				}
			}()
		}
		fmt.Println("ready")
		for {
			time.Sleep(time.Hour)
		}
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	o.Release()
	fmt.Println("released")
	for {
		time.Sleep(time.Hour)
	}
}

// TestOwnedHolderKilledWhileStartingPrograms: a holder SIGKILLed while it
// forks children (each keeps a copy of the lock's descriptor until its
// exec) does not refuse the next caller, nor look alive to a status check,
// once it is reaped. Without the wait for a dead holder, 2 or 3 of 30
// were refused here.
func TestOwnedHolderKilledWhileStartingPrograms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	for i := range 30 {
		h := startHolder(t, "own-forking:"+path)
		if live, err := lock.OwnedByLive(path); err != nil || !live {
			t.Fatalf("round %d: OwnedByLive of a running holder = %v, %v", i, live, err)
		}
		h.cmd.Process.Signal(syscall.SIGKILL)
		h.cmd.Wait()
		if live, err := lock.OwnedByLive(path); err != nil || live {
			t.Fatalf("round %d: OwnedByLive after the holder was killed = %v, %v", i, live, err)
		}
		o, err := lock.TakeOwned(path)
		if err != nil {
			t.Fatalf("round %d: the lock of a killed holder: %v", i, err)
		}
		o.Release()
	}
}

// TestOwnedRefusesALiveHolder: a live holder's lock is refused; once it releases the lock it is not its owner any more,
// though it lives on.
func TestOwnedRefusesALiveHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	h := startHolder(t, "own:"+path)
	if _, err := lock.TakeOwned(path); !errors.Is(err, lock.ErrOwned) {
		t.Fatalf("TakeOwned of a live holder's lock: %v, want ErrOwned", err)
	}
	if live, err := lock.OwnedByLive(path); err != nil || !live {
		t.Fatalf("OwnedByLive = %v, %v", live, err)
	}
	h.stdin.Close()
	waitFor(t, func() bool { live, _ := lock.OwnedByLive(path); return !live })
	o, err := lock.TakeOwned(path)
	if err != nil {
		t.Fatalf("TakeOwned after the holder released it: %v", err)
	}
	o.Release()
	if err := h.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the holder did not live on after releasing: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
	}
}
