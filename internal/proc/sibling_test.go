package proc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sibling installs a program of the given script on PATH.
func sibling(t *testing.T, script string) Program {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "csa-test-sibling"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return Program("csa-test-sibling")
}

// A run's streams, arguments and environment are the call's; its
// standard error, not taken, is kept for its error line.
func TestProgramRun(t *testing.T) {
	p := sibling(t, `cat; echo "$1 $SIB_X"; echo "csa: failed" >&2; exit 4`)
	var out bytes.Buffer
	e, err := p.Run(context.Background(), Call{Args: []string{"arg"}, Env: append(os.Environ(), "SIB_X=x"),
		Stdin: strings.NewReader("in\n"), Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "in\narg x\n" || e.ExitCode != 4 || e.Stderr != "csa: failed\n" {
		t.Errorf("out %q, ended %+v", out.String(), e)
	}
	if _, err := Program("csa-no-such-sibling").Run(context.Background(), Call{}); err == nil ||
		!strings.Contains(err.Error(), "neither beside") {
		t.Errorf("a program that is not installed: %v", err)
	}
}

// A context that ends stops the program's whole group: a child it
// started goes too, and Wait says why.
func TestProgramStoppedWithContext(t *testing.T) {
	p := sibling(t, `sleep 300 & echo $! ; wait`)
	ctx, cancel := context.WithCancelCause(context.Background())
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Start(ctx, Call{Stdout: pw})
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	var line [32]byte
	n, _ := pr.Read(line[:]) // the child's pid: it runs
	pid := 0
	for _, c := range bytes.TrimSpace(line[:n]) {
		pid = pid*10 + int(c-'0')
	}
	stopped := errors.New("stopped")
	cancel(stopped)
	e, err := r.Wait()
	if !errors.Is(err, stopped) || e.ExitCode != -1 {
		t.Errorf("Wait: %+v, %v; want a signal's end and the cause", e, err)
	}
	for deadline := time.Now().Add(10 * time.Second); Alive(pid) && !zombie(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("the program's child %d outlived it", pid)
		}
		time.Sleep(10 * time.Millisecond) // the poll interval of a condition
	}
}

func zombie(pid int) bool {
	s, ok := Stat(pid)
	return ok && s.State == 'Z'
}
