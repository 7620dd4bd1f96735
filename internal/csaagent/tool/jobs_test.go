package tool

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFor polls cond: the machine may be busy, so there is no fixed sleep
// to wait on, only a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func alive(pid int) bool {
	// A zombie still answers kill 0; /proc state Z is dead for us.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z' && syscall.Kill(pid, 0) == nil
}

func TestJobsOutputStatusKill(t *testing.T) {
	j := NewJobs(t.TempDir())
	defer j.KillAll()
	id, err := j.Start("echo one; echo two >&2; echo $$ > pid; exit 3", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if id != "bash_1" {
		t.Errorf("id = %q", id)
	}
	var st JobState
	var all strings.Builder
	waitFor(t, "job exit", func() bool {
		st, err = j.ReadNew(id, 0)
		all.WriteString(st.New)
		return err == nil && st.Status == JobExited
	})
	// The state is taken before reading: once it says exited, that read
	// had all the output.
	st2, _ := j.ReadNew(id, 0)
	if all.String() != "one\ntwo\n" || st.ExitCode != 3 {
		t.Errorf("output %q exit %d", all.String(), st.ExitCode)
	}
	if st2.New != "" {
		t.Errorf("second read repeated output: %q", st2.New)
	}
	if _, err := j.Kill(id); err == nil {
		t.Error("killing an exited job succeeded")
	}
	if _, err := j.ReadNew("bash_99", 0); err == nil {
		t.Error("unknown id read")
	}
}

func TestJobsKillGroupAndPaging(t *testing.T) {
	dir := t.TempDir()
	j := NewJobs(t.TempDir())
	defer j.KillAll()
	// A child that ignores SIGTERM, in the job's group.
	id, err := j.Start(`trap '' TERM; sleep 300 & echo $! > child; echo started; printf 'é%.0s' $(seq 10); wait`, dir)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	waitFor(t, "job output", func() bool {
		st, _ := j.ReadNew(id, 5) // small pages; never split a rune
		out.WriteString(st.New)
		return strings.Count(out.String(), "é") == 10
	})
	if out.String() != "started\n"+strings.Repeat("é", 10) {
		t.Errorf("paged output %q", out.String())
	}
	b, err := os.ReadFile(dir + "/child")
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	old := KillGrace
	KillGrace = 200 * time.Millisecond
	defer func() { KillGrace = old }()
	st, err := j.Kill(id)
	if err != nil || st.Status != JobKilled {
		t.Fatalf("Kill: %+v %v", st, err)
	}
	waitFor(t, "child killed", func() bool { return !alive(child) })
}

func TestJobsKillAll(t *testing.T) {
	before := runtime.NumGoroutine()
	j := NewJobs("") // a temporary directory
	var ids []string
	for range 3 {
		id, err := j.Start("sleep 300", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	j.KillAll()
	for _, st := range j.List() {
		if st.Status != JobKilled {
			t.Errorf("%s: %s", st.ID, st.Status)
		}
	}
	if len(j.List()) != 3 || j.List()[2].ID != "bash_3" {
		t.Errorf("list %+v", j.List())
	}
	os.RemoveAll(j.dir)
	// Nothing waits on the killed jobs any more.
	waitFor(t, "job goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}
