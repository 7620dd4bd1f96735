package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
	"github.com/csa-dev/csa/internal/proc"
)

// The scripts' MCP servers are the pinned npm server-everything (make
// mcp-servers installs it; missing, the script fails saying so).

// mcpbin VAR: VAR is server-everything's executable.
func cmdMCPBin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mcpbin VAR")
	}
	bin, err := mcptest.Bin(mcptest.Everything)
	ts.Check(err)
	ts.Setenv(args[0], bin)
}

// mcphttp VAR: start server-everything as a streamable HTTP server on a
// free port, wait until it listens, and set VAR to its /mcp URL. It is
// stopped when the script ends.
func cmdMCPHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mcphttp VAR")
	}
	bin, err := mcptest.Bin(mcptest.Everything)
	ts.Check(err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logf, err := os.Create(ts.MkAbs("mcphttp.log"))
	ts.Check(err)
	p, err := proc.Start(proc.Spec{Path: bin, Args: []string{"streamableHttp"}, Env: append(os.Environ(), fmt.Sprintf("PORT=%d", port)),
		Stdout: logf, Stderr: logf, DieWithParent: true})
	ts.Check(err)
	ts.Defer(func() { p.Terminate(5 * time.Second); logf.Close() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(time.Minute); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		select {
		case <-p.Done():
			ts.Fatalf("server-everything exited: %v", p.Wait())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			ts.Fatalf("server-everything not listening on %s after a minute", addr)
		}
	}
	ts.Setenv(args[0], "http://"+addr+"/mcp")
}

// mcpleft TAG: no live process has TAG (NAME=value) in its environment
// (waiting up to a minute for killed ones to go); with !, some has.
func cmdMCPLeft(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || !strings.Contains(args[0], "=") {
		ts.Fatalf("usage: mcpleft NAME=VALUE")
	}
	pids := mcptest.Tagged(args[0])
	for deadline := time.Now().Add(time.Minute); !neg && len(pids) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		pids = mcptest.Tagged(args[0])
	}
	if neg != (len(pids) > 0) {
		ts.Fatalf("processes tagged %s: %v", args[0], pids)
	}
}
