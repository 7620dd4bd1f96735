package proc

import (
	"os/exec"
	"runtime"
)

// startConfined starts cmd from an OS thread of its own that confine
// restricts first. The thread is never handed back to Go's scheduler (no
// other goroutine may run restricted): it ends with its goroutine, which
// waits for the program to end (done), since the kernel sends the
// parent-death signal (Spec.DieWithParent) when the forking thread ends.
// (Should the goroutine land on the process's main thread, which cannot
// end, Go parks that thread for good: no goroutine runs on it again.)
func startConfined(cmd *exec.Cmd, confine func() error, done <-chan struct{}) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		if err := confine(); err != nil {
			errc <- err
			return
		}
		err := cmd.Start()
		errc <- err
		if err == nil {
			<-done
		}
	}()
	return <-errc
}
