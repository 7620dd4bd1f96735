package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Entry is one process of the process table.
type Entry struct {
	PID, PPID, PGID int
	State           byte
	Comm            string
	CPUTicks        int64 // user + system time, in clock ticks
}

// Table is a snapshot of every process, read once and shared by all the
// sessions a command asks about.
type Table struct {
	ByPID    map[int]Entry
	children map[int][]int
}

// ReadTable reads /proc once.
func ReadTable() (*Table, error) { return readTable("/proc") }

func readTable(root string) (*Table, error) {
	d, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	t := &Table{ByPID: make(map[int]Entry, len(names)), children: map[int][]int{}}
	buf := make([]byte, 0, 512)
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		b, err := readSmall(root+"/"+n+"/stat", buf)
		if err != nil {
			continue // exited meanwhile
		}
		if e, ok := parseStat(b); ok {
			t.ByPID[e.PID] = e
			t.children[e.PPID] = append(t.children[e.PPID], e.PID)
		}
	}
	return t, nil
}

func readSmall(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := f.Read(buf[:cap(buf)])
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// Stat reads one process's entry from /proc/PID/stat; ok is false when the
// process is gone. It is the one reader of that file.
func Stat(pid int) (Entry, bool) {
	b, err := readSmall("/proc/"+strconv.Itoa(pid)+"/stat", make([]byte, 0, 512))
	if err != nil {
		return Entry{}, false
	}
	return parseStat(b)
}

// parseStat reads /proc/PID/stat; comm may hold spaces and parentheses, so
// the fields after it are found from the last ')'.
func parseStat(b []byte) (Entry, bool) {
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open || close+2 > len(b) {
		return Entry{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return Entry{}, false
	}
	f := bytes.Fields(b[close+2:])
	// state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
	if len(f) < 13 {
		return Entry{}, false
	}
	e := Entry{PID: pid, Comm: string(b[open+1 : close]), State: f[0][0]}
	e.PPID, _ = strconv.Atoi(string(f[1]))
	e.PGID, _ = strconv.Atoi(string(f[2]))
	ut, _ := strconv.ParseInt(string(f[11]), 10, 64)
	st, _ := strconv.ParseInt(string(f[12]), 10, 64)
	e.CPUTicks = ut + st
	return e, true
}

// Children lists the direct children of pid.
func (t *Table) Children(pid int) []int { return t.children[pid] }

// Descendants lists pid's descendants (not pid), parents before children.
func (t *Table) Descendants(pid int) []int {
	var out []int
	walk(pid, t.Children, func(p int) {
		if p != pid {
			out = append(out, p)
		}
	})
	return out
}

// TreeCPU is the CPU time of pid and all its descendants, in clock ticks.
func (t *Table) TreeCPU(pid int) int64 {
	e, ok := t.ByPID[pid]
	if !ok {
		return 0
	}
	total := e.CPUTicks
	for _, c := range t.Descendants(pid) {
		total += t.ByPID[c].CPUTicks
	}
	return total
}

// TreeCPUOf is the CPU time of pid and its descendants, found through every
// thread's children list (no full process-table read), and how many
// processes that is.
func TreeCPUOf(pid int) (ticks int64, procs int) {
	buf := make([]byte, 0, 512)
	WalkTree(pid, func(p int) {
		b, err := readSmall("/proc/"+strconv.Itoa(p)+"/stat", buf)
		if err != nil {
			return
		}
		if e, ok := parseStat(b); ok {
			ticks += e.CPUTicks
			procs++
		}
	})
	return ticks, procs
}

// maxTree bounds a walk: a fork bomb must not make csa walk forever.
const maxTree = 4096

// WalkTree visits pid and each of its descendants once, parents before
// children, finding children through TaskChildren.
func WalkTree(pid int, visit func(pid int)) { walk(pid, TaskChildren, visit) }

func walk(root int, children func(int) []int, visit func(int)) {
	seen := map[int]bool{}
	queue := []int{root}
	for len(queue) > 0 && len(seen) < maxTree {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		visit(p)
		queue = append(queue, children(p)...)
	}
}

// TaskChildren lists pid's children through every thread's children list:
// a multi-threaded parent (node, Go) forks from any thread.
func TaskChildren(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid)
	tasks, err := os.ReadDir(dir + "/task")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// RSS is a process's resident memory in bytes (/proc/PID/statm); false
// when it is gone.
func RSS(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// SelfCPU is the CPU time this process has used, user and system, every
// thread: what a benchmark costs on a machine shared with other work,
// where its wall time says more about the others.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
