package keeper

import (
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/lock"
)

// DaemonCommand is the hidden csa command the daemon runs as.
const DaemonCommand = "__keeperd"

// idleFor is how long the daemon waits with no run to keep before it
// exits; checkEvery is how often it looks.
const (
	idleFor    = 5 * time.Minute
	checkEvery = 2 * time.Second
)

// DaemonMain is `csa __keeperd SOCKET`: it keeps every run that connects
// to SOCKET until none has for idleFor, or SOCKET is removed or replaced
// (nobody can reach it any more). One daemon serves a socket: another one
// started for it exits at once. It returns its exit status.
func DaemonMain(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: csa "+DaemonCommand+" SOCKET")
		return 2
	}
	sock := args[0]
	l := lock.New(sock + ".lock")
	if ok, err := l.TryLock(); err != nil || !ok {
		return 0
	}
	defer l.Unlock()
	os.Remove(sock) // a dead daemon's: a live one would hold the lock
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa "+DaemonCommand+":", err)
		return 1
	}
	ln.SetUnlinkOnClose(false)
	fi, err := os.Stat(sock)
	if err != nil {
		ln.Close()
		return 1
	}
	serve(ln, sock, fi)
	return 0
}

// serve keeps the runs that connect to ln until the daemon should quit,
// then stops listening and waits for the runs it keeps to end.
func serve(ln *net.UnixListener, sock string, fi os.FileInfo) {
	var mu sync.Mutex
	active, last := 0, time.Now()
	var runs sync.WaitGroup
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			mu.Lock()
			active++
			mu.Unlock()
			runs.Add(1)
			go func() {
				defer runs.Done()
				keep(c)
				mu.Lock()
				active, last = active-1, time.Now()
				mu.Unlock()
			}()
		}
	}()
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for range tick.C {
		now, err := os.Stat(sock)
		if err != nil || !os.SameFile(fi, now) {
			break
		}
		mu.Lock()
		idle := active == 0 && time.Since(last) > idleFor
		mu.Unlock()
		if idle {
			// Runs that connect from now on keep themselves until a new
			// daemon serves.
			os.Remove(sock)
			break
		}
	}
	ln.Close()
	<-accepted
	runs.Wait()
}

// keep keeps one run: it reads what its supervisor says and, if the
// connection ends without "done", sweeps.
func keep(c *net.UnixConn) {
	defer c.Close()
	if !sameUser(c) {
		return
	}
	o, released := readOrders(c)
	if !released {
		Sweep(o.pgids, o.tags, o.procs)
	}
}

// sameUser checks that the peer is this user: the socket's directory is
// private already, and a sweep kills what it is told to.
func sameUser(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var uid = -1
	raw.Control(func(fd uintptr) {
		if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
			uid = int(cred.Uid)
		}
	})
	return uid == os.Getuid()
}
