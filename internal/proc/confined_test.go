package proc

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStartConfined: what Confine sets on its thread (no_new_privs here)
// holds in the child and nowhere else in this process, and a child that
// dies with its parent outlives the start: the forking thread stays.
func TestStartConfined(t *testing.T) {
	var out bytes.Buffer
	p, err := Start(Spec{
		Path: "sh", Args: []string{"-c", "sleep 0.3; grep NoNewPrivs /proc/self/status"},
		Stdout: &out, DieWithParent: true,
		Confine: func() error { return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if ps := p.Wait(); !ps.Success() {
		t.Fatalf("the child ended %v (killed with its forking thread?)", ps)
	}
	if !strings.Contains(out.String(), "NoNewPrivs:\t1") {
		t.Errorf("the child was not confined: %q", out.String())
	}
	// Goroutines go on running on unconfined threads.
	for range 8 {
		c := make(chan int)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			nnp, _ := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
			c <- nnp
		}()
		if <-c != 0 {
			t.Fatal("a goroutine ran on the confined thread")
		}
	}
	// A confinement that fails starts nothing.
	refused := errors.New("refused")
	if _, err := Start(Spec{Path: "true", Confine: func() error { return refused }}); !errors.Is(err, refused) {
		t.Errorf("a failed confinement: %v", err)
	}
}
