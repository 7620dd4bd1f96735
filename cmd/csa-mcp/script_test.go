package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/csa-dev/csa/internal/mcp/hub"
	"github.com/csa-dev/csa/internal/mcp/link"
	"github.com/csa-dev/csa/internal/testkit/scripttest"
)

// TestScripts runs the `csa mcp` command contract in testdata/*.txtar with
// csa and csa-mcp, as built, on PATH.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("CSA_STATE_DIR", filepath.Join(env.WorkDir, "state"))
			env.Setenv("CSA_CONFIG_HOME", filepath.Join(env.WorkDir, "cfg"))
			env.Setenv("XDG_RUNTIME_DIR", filepath.Join(env.WorkDir, "run"))
			for _, k := range []string{"CSA_SESSION_ID", "CSA_DEPTH", "CSA_PROJECT_ROOT", "CSA_TOOL", "XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
				env.Setenv(k, "")
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			env.Setenv("TESTSERVER", exe)
			socket := filepath.Join(env.WorkDir, "run", "csa", link.SocketName)
			env.Setenv("SOCKET", socket)
			// A script that fails half way leaves no hub.
			env.Defer(func() {
				if err := hub.Stop(socket, 30*time.Second); err != nil && !errors.Is(err, hub.ErrNoHub) {
					t.Errorf("stopping the hub: %v", err)
				}
			})
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   scripttest.Exits,
			"waithub": cmdWaitHub,
		},
	})
}

// waithub: wait (bounded) until a hub answers on $SOCKET; ! waithub: until
// none does and its socket is gone.
func cmdWaitHub(ts *testscript.TestScript, neg bool, args []string) {
	socket := ts.Getenv("SOCKET")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err := os.Stat(socket)
		if link.Answers(socket) != neg && (!neg || os.IsNotExist(err)) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waithub %s: not after 30 s", strings.Join(args, " "))
		}
	}
}
