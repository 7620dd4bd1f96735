package sandbox

import (
	"errors"
	"net"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// TestNetRulesetOnThread: a thread confined by a net-only ruleset
// connects to the allowed port and is refused any other, by the kernel.
func TestNetRulesetOnThread(t *testing.T) {
	abi, why := Probe()
	if abi < NetABI {
		t.Skipf("no Landlock TCP rules here (ABI %d): %s", abi, why)
	}
	allowed, other := listen(t), listen(t)
	p := &Policy{Net: MechLandlockProxy, ConnectPorts: []uint16{port(t, allowed)}}
	rs, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	type result struct{ allowed, other error }
	done := make(chan result)
	go func() {
		// The thread is confined for good: it is never given back (it
		// ends with the goroutine).
		runtime.LockOSThread()
		if err := rs.RestrictThread(); err != nil {
			done <- result{allowed: err, other: err}
			return
		}
		var r result
		c, err := net.Dial("tcp", allowed.Addr().String())
		if err == nil {
			c.Close()
		}
		r.allowed = err
		if c, err := net.Dial("tcp", other.Addr().String()); err == nil {
			c.Close()
		} else {
			r.other = err
		}
		done <- r
	}()
	r := <-done
	if r.allowed != nil {
		t.Errorf("connect to the allowed port: %v", r.allowed)
	}
	if !errors.Is(r.other, syscall.EACCES) {
		t.Errorf("connect to another port: %v, want EACCES", r.other)
	}
	// This goroutine's thread is not confined.
	c, err := net.Dial("tcp", other.Addr().String())
	if err != nil {
		t.Fatalf("an unconfined thread was refused: %v", err)
	}
	c.Close()
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func port(t *testing.T, l net.Listener) uint16 {
	_, p, _ := net.SplitHostPort(l.Addr().String())
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return uint16(n)
}
