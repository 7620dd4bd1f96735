package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The installed csa-mcp confines a limited server through its own shim
// (csa-mcp __exec) and keeps a lazy server's tools in csa's state
// directory.
func TestHubLimitsAndLazyCache(t *testing.T) {
	w := newWorld(t)
	h := startHub(t, w, "[servers.csa]\ncommand = "+quote(filepath.Join(bin, "csa-mcp"))+"\nargs = [\"server\"]\ncwd = "+quote(w.proj)+
		"\nmemory_max_mb = 2048\nlazy = true\n")
	cs := h.connect(t, nil)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rep := h.status(t)
	if len(rep.Backends) != 1 || rep.Backends[0].PID == 0 || rep.Backends[0].Sandbox == "" {
		t.Fatalf("status %+v: want the server running in a sandbox layer", rep.Backends)
	}
	b := rep.Backends[0]
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", b.PID))
	if filepath.Base(exe) != "csa-mcp" {
		t.Fatalf("the shim did not exec the server: pid %d is %s", b.PID, exe)
	}
	switch b.Sandbox {
	case "cgroup1", "cgroup2":
		cg, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", b.PID))
		if !strings.Contains(string(cg), "/csa-") {
			t.Fatalf("server %d is in no csa group:\n%s", b.PID, cg)
		}
	case "setrlimit":
		lim, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", b.PID))
		if !strings.Contains(string(lim), fmt.Sprint(int64(2048)<<20)) {
			t.Fatalf("server %d has no 2048 MB address-space limit:\n%s", b.PID, lim)
		}
	default:
		t.Fatalf("sandbox %q", b.Sandbox)
	}
	known, _ := filepath.Glob(filepath.Join(w.dir, "state", "mcp-known", "csa-*.json"))
	if len(known) != 1 {
		t.Fatalf("the lazy server's tools were not kept in csa's state directory: %q", known)
	}
}
