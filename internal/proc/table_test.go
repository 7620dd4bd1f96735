package proc

import (
	"os"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	e, ok := parseStat([]byte("42 (a (weird) name) S 7 42 42 0 -1 4194560 100 0 0 0 11 22 0 0 20 0 1 0 5 0 0"))
	if !ok || e.PID != 42 || e.PPID != 7 || e.PGID != 42 || e.Comm != "a (weird) name" || e.State != 'S' || e.CPUTicks != 33 {
		t.Fatalf("%+v %v", e, ok)
	}
	if _, ok := parseStat([]byte("garbage")); ok {
		t.Fatal("garbage parsed")
	}
}

func TestTableFindsChildrenAndTreeCPU(t *testing.T) {
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 5 & sleep 5 & wait"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Terminate(time.Second)
	var tb *Table
	for range 100 {
		if tb, err = ReadTable(); err != nil {
			t.Fatal(err)
		}
		if len(tb.Children(p.Pid)) == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(tb.Children(p.Pid)) != 2 || len(tb.Descendants(p.Pid)) != 2 {
		t.Fatalf("children %v", tb.Children(p.Pid))
	}
	if tb.ByPID[os.Getpid()].PID != os.Getpid() {
		t.Fatal("own process missing")
	}
	if _, n := TreeCPUOf(p.Pid); n != 3 {
		t.Fatalf("TreeCPUOf counted %d processes, want 3", n)
	}
}
