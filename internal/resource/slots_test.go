package resource_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/resource"
)

// slotsHelperEnv makes the re-executed test binary act as a slot user
// (see TestSlotsHelperProcess) instead of running tests. The package has
// no TestMain of its own so that other files of the package can add one.
const slotsHelperEnv = "CSA_RESOURCE_SLOTS_HELPER"

// TestSlotsHelperProcess is not a test: run by a re-executed test binary
// with slotsHelperEnv set, it is one process using the slots, in a mode:
//
//	hold   TryAcquire, print "ready <index>", keep the slot until stdin closes
//	adopt  AdoptSlot(3), print "ready", exit when stdin closes without releasing
//	run    Acquire (waiting), log "start <id>", hold HOLD_MS, log "end <id>", release
func TestSlotsHelperProcess(t *testing.T) {
	mode := os.Getenv(slotsHelperEnv)
	if mode == "" {
		t.Skip("helper process for the slot tests")
	}
	os.Exit(slotsHelperMain(mode))
}

func slotsHelperMain(mode string) int {
	env := func(k string) string { return os.Getenv("CSA_RESOURCE_SLOTS_" + k) }
	atoi := func(k string) int { n, _ := strconv.Atoi(env(k)); return n }
	s := resource.NewSlots(env("DIR"))
	tool, max := env("TOOL"), atoi("MAX")
	fail := func(err error) int { fmt.Println("error:", err); return 1 }
	switch mode {
	case "hold":
		sl, err := s.TryAcquire(tool, max)
		if err != nil {
			return fail(err)
		}
		fmt.Println("ready", sl.Index)
		io.Copy(io.Discard, os.Stdin)
		sl.Release()
	case "adopt":
		if _, err := resource.AdoptSlot(3, tool, atoi("INDEX")); err != nil {
			return fail(err)
		}
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
	case "run":
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		sl, err := s.Acquire(ctx, tool, max)
		if err != nil {
			return fail(err)
		}
		id := env("ID")
		if err := slotsLog(env("LOG"), "start "+id); err != nil {
			return fail(err)
		}
		time.Sleep(time.Duration(atoi("HOLD_MS")) * time.Millisecond)
		if err := slotsLog(env("LOG"), "end "+id); err != nil {
			return fail(err)
		}
		if err := sl.Release(); err != nil {
			return fail(err)
		}
	default:
		return fail(fmt.Errorf("unknown mode %q", mode))
	}
	return 0
}

// slotsLog appends line to the shared log under its lock, so the log's
// order is the order in which the events happened.
func slotsLog(path, line string) error {
	l := lock.New(path + ".lock")
	if err := l.LockTimeout(context.Background(), time.Minute); err != nil {
		return err
	}
	defer l.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// slotsProc is a helper process.
type slotsProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // its stdout
	done  chan error  // its exit, with its output if it failed
}

// slotsStart starts a helper in mode with CSA_RESOURCE_SLOTS_<k>=<v> for
// each "k=v" in vars.
func slotsStart(t *testing.T, mode string, vars []string, extra ...*os.File) *slotsProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSlotsHelperProcess$")
	// No 1 s race-detector pause at exit: the tests wait for helpers.
	cmd.Env = append(os.Environ(), slotsHelperEnv+"="+mode, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	for _, v := range vars {
		cmd.Env = append(cmd.Env, "CSA_RESOURCE_SLOTS_"+v)
	}
	cmd.ExtraFiles = extra
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &slotsProc{cmd: cmd, stdin: stdin, lines: make(chan string, 16), done: make(chan error, 1)}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	go func() {
		var all []string
		sc := bufio.NewScanner(out)
		for sc.Scan() { // to EOF before Wait closes the pipe
			all = append(all, sc.Text())
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		err := cmd.Wait()
		text := strings.Join(all, "\n")
		if err != nil || strings.Contains(text, "error:") {
			err = fmt.Errorf("%v: %s %s", err, text, stderr.String())
		}
		p.done <- err
	}()
	return p
}

// ready waits for the helper's "ready" line and returns its fields.
func (p *slotsProc) ready(t *testing.T) []string {
	t.Helper()
	select {
	case s := <-p.lines:
		f := strings.Fields(s)
		if len(f) == 0 || f[0] != "ready" {
			t.Fatalf("slot helper said %q", s)
		}
		return f
	case err := <-p.done:
		p.done <- err
		t.Fatalf("slot helper exited before it was ready: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("slot helper did not report ready")
	}
	return nil
}

// wait waits for the helper to exit and fails the test if it failed.
func (p *slotsProc) wait(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for Cleanup
		if err != nil {
			t.Fatalf("slot helper: %v", err)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("slot helper did not exit")
	}
}

// kill SIGKILLs the helper and reaps it.
func (p *slotsProc) kill(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGKILL)
	err := <-p.done
	p.done <- err
}

func slotsHeld(t *testing.T, s *resource.Slots, tool string, max int) int {
	t.Helper()
	n, err := s.Held(tool, max)
	if err != nil {
		t.Fatalf("Held: %v", err)
	}
	return n
}

// slotsAwaitWaiting waits (bounded) until n processes are queued for tool.
func slotsAwaitWaiting(t *testing.T, s *resource.Slots, tool string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := s.Waiting(tool)
		if err != nil {
			t.Fatalf("Waiting: %v", err)
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Waiting = %d, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func slotsMustTry(t *testing.T, s *resource.Slots, tool string, max int) *resource.Slot {
	t.Helper()
	sl, err := s.TryAcquire(tool, max)
	if err != nil {
		t.Fatalf("TryAcquire(%s, %d): %v", tool, max, err)
	}
	return sl
}

func slotsMustBeFull(t *testing.T, s *resource.Slots, tool string, max int) {
	t.Helper()
	sl, err := s.TryAcquire(tool, max)
	if err == nil {
		sl.Release()
		t.Fatalf("TryAcquire(%s, %d) took slot %d; want ErrNoSlots", tool, max, sl.Index)
	}
	if !errors.Is(err, resource.ErrNoSlots) {
		t.Fatalf("TryAcquire(%s, %d) = %v; want ErrNoSlots", tool, max, err)
	}
}

func TestSlotsTryAcquireUpToMax(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "slots")
	s := resource.NewSlots(dir)
	var held []*resource.Slot
	seen := map[int]bool{}
	for range 3 {
		sl := slotsMustTry(t, s, "codex", 3)
		if sl.Tool != "codex" || sl.Index < 0 || sl.Index >= 3 || seen[sl.Index] {
			t.Fatalf("slot %+v: want a new index in [0,3)", sl)
		}
		seen[sl.Index] = true
		held = append(held, sl)
	}
	_, err := s.TryAcquire("codex", 3)
	if !errors.Is(err, resource.ErrNoSlots) {
		t.Fatalf("fourth TryAcquire = %v; want ErrNoSlots", err)
	}
	if !strings.Contains(err.Error(), "no slots available") || !strings.Contains(err.Error(), "codex") {
		t.Errorf("error %q: want it to say no slots available for codex", err)
	}
	if n := slotsHeld(t, s, "codex", 3); n != 3 {
		t.Errorf("Held = %d, want 3", n)
	}
	// Another tool has its own slots.
	other := slotsMustTry(t, s, "claude-code", 1)
	slotsMustBeFull(t, s, "claude-code", 1)

	// Release frees exactly that slot.
	freed := held[1].Index
	if err := held[1].Release(); err != nil {
		t.Fatal(err)
	}
	if err := held[1].Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if n := slotsHeld(t, s, "codex", 3); n != 2 {
		t.Errorf("Held after a Release = %d, want 2", n)
	}
	again := slotsMustTry(t, s, "codex", 3)
	if again.Index != freed {
		t.Errorf("TryAcquire after Release took slot %d, want the freed %d", again.Index, freed)
	}
	slotsMustBeFull(t, s, "codex", 3)
	// A larger limit reaches past the held slots.
	more := slotsMustTry(t, s, "codex", 4)
	if more.Index != 3 {
		t.Errorf("TryAcquire(max 4) took slot %d, want 3", more.Index)
	}
	for _, sl := range append(held, again, more, other) {
		sl.Release()
	}
	if n := slotsHeld(t, s, "codex", 4); n != 0 {
		t.Errorf("Held after releasing all = %d, want 0", n)
	}

	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o700 {
		t.Errorf("slots dir mode = %v, want 0700", m)
	}
	fi, err = os.Stat(filepath.Join(dir, "codex-0.lock"))
	if err != nil {
		t.Fatalf("slot file: %v", err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("slot file mode = %v, want 0600", m)
	}
}

func TestSlotsInvalidArguments(t *testing.T) {
	s := resource.NewSlots(filepath.Join(t.TempDir(), "slots"))
	for _, tool := range []string{"", "../codex", "a/b", ".hidden", "-x", "a b", strings.Repeat("x", 65)} {
		if sl, err := s.TryAcquire(tool, 1); err == nil {
			sl.Release()
			t.Errorf("TryAcquire(%q) succeeded", tool)
		}
		if _, err := s.Held(tool, 1); err == nil {
			t.Errorf("Held(%q) succeeded", tool)
		}
		if _, err := s.Waiting(tool); err == nil {
			t.Errorf("Waiting(%q) succeeded", tool)
		}
	}
	for _, max := range []int{0, -1} {
		if _, err := s.TryAcquire("codex", max); err == nil || errors.Is(err, resource.ErrNoSlots) {
			t.Errorf("TryAcquire(max %d) = %v; want an argument error", max, err)
		}
		if _, err := s.Acquire(context.Background(), "codex", max); err == nil {
			t.Errorf("Acquire(max %d) succeeded", max)
		}
	}
}

func TestSlotsKilledHolderFreesSlot(t *testing.T) {
	dir := t.TempDir()
	s := resource.NewSlots(dir)
	p := slotsStart(t, "hold", []string{"DIR=" + dir, "TOOL=codex", "MAX=1"})
	if f := p.ready(t); len(f) != 2 || f[1] != "0" {
		t.Fatalf("holder reported %v, want slot 0", f)
	}
	if n := slotsHeld(t, s, "codex", 1); n != 1 {
		t.Fatalf("Held = %d while another process holds the slot", n)
	}
	slotsMustBeFull(t, s, "codex", 1)

	p.kill(t)
	if n := slotsHeld(t, s, "codex", 1); n != 0 {
		t.Errorf("Held = %d after the holder was SIGKILLed; the kernel drops its flock", n)
	}
	slotsMustTry(t, s, "codex", 1).Release()
}

func TestSlotsInheritedHandoff(t *testing.T) {
	dir := t.TempDir()
	s := resource.NewSlots(dir)
	sl := slotsMustTry(t, s, "codex", 1)
	child := slotsStart(t, "adopt", []string{"DIR=" + dir, "TOOL=codex", "INDEX=" + strconv.Itoa(sl.Index)}, sl.File)
	child.ready(t)
	if err := sl.Release(); err != nil {
		t.Fatal(err)
	}
	if n := slotsHeld(t, s, "codex", 1); n != 1 {
		t.Fatalf("Held = %d after the parent released; the child holds the slot", n)
	}
	slotsMustBeFull(t, s, "codex", 1)

	child.stdin.Close() // the child exits without releasing
	child.wait(t)
	if n := slotsHeld(t, s, "codex", 1); n != 0 {
		t.Errorf("Held = %d after the child exited", n)
	}
	slotsMustTry(t, s, "codex", 1).Release()
}

func TestSlotsAdoptRejectsForeignLock(t *testing.T) {
	dir := t.TempDir()
	s := resource.NewSlots(dir)
	sl := slotsMustTry(t, s, "codex", 1)
	defer sl.Release()
	// A second open file of the same slot does not hold its lock.
	f, err := os.Open(filepath.Join(dir, "codex-0.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if a, err := resource.AdoptSlot(uintptr(fd), "codex", 0); err == nil {
		a.Release()
		t.Error("AdoptSlot of a descriptor that does not hold the lock succeeded")
	}
	if _, err := resource.AdoptSlot(uintptr(fd), "../x", 0); err == nil {
		t.Error("AdoptSlot with an invalid tool name succeeded")
	}
}

func TestSlotsAcquireWaitsForRelease(t *testing.T) {
	s := resource.NewSlots(t.TempDir())
	held := slotsMustTry(t, s, "codex", 1)
	got := make(chan *resource.Slot, 1)
	errc := make(chan error, 1)
	go func() {
		sl, err := s.Acquire(context.Background(), "codex", 1)
		got <- sl
		errc <- err
	}()
	slotsAwaitWaiting(t, s, "codex", 1)
	held.Release()
	select {
	case sl := <-got:
		if err := <-errc; err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		if sl.Index != 0 {
			t.Errorf("Acquire took slot %d, want 0", sl.Index)
		}
		slotsMustBeFull(t, s, "codex", 1)
		sl.Release()
	case <-time.After(time.Minute):
		t.Fatal("Acquire did not return after the slot was released")
	}
	if n, err := s.Waiting("codex"); err != nil || n != 0 {
		t.Errorf("Waiting after Acquire = %d, %v; want 0", n, err)
	}
}

func TestSlotsAcquireContextEnds(t *testing.T) {
	dir := t.TempDir()
	s := resource.NewSlots(dir)
	held := slotsMustTry(t, s, "codex", 1)
	defer held.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	sl, err := s.Acquire(ctx, "codex", 1)
	if err == nil {
		sl.Release()
		t.Fatal("Acquire took a held slot")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire = %v; want DeadlineExceeded", err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "queue", "codex"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("queue holds %d files after the waiter gave up, want none", len(ents))
	}
	// A cancelled context fails even when a slot is free.
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if sl, err := s.Acquire(cancelled, "opencode", 1); err == nil {
		sl.Release()
		t.Error("Acquire with a cancelled context took a slot")
	}
}

// slotsRunLog reads the "start ID"/"end ID" log of run helpers.
func slotsRunLog(t *testing.T, path string) (starts []string, maxOverlap, ends int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cur := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		ev, id, _ := strings.Cut(line, " ")
		switch ev {
		case "start":
			starts = append(starts, id)
			cur++
			maxOverlap = max(maxOverlap, cur)
		case "end":
			ends++
			cur--
		default:
			t.Fatalf("log line %q", line)
		}
	}
	return starts, maxOverlap, ends
}

func TestSlotsKilledWaiterDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	s := resource.NewSlots(dir)
	held := slotsMustTry(t, s, "codex", 1)
	vars := func(id string) []string {
		return []string{"DIR=" + dir, "TOOL=codex", "MAX=1", "LOG=" + log, "HOLD_MS=1", "ID=" + id}
	}
	x := slotsStart(t, "run", vars("X"))
	slotsAwaitWaiting(t, s, "codex", 1)
	y := slotsStart(t, "run", vars("Y"))
	slotsAwaitWaiting(t, s, "codex", 2)

	x.kill(t) // at the head of the queue, with its ticket left behind
	slotsAwaitWaiting(t, s, "codex", 1)
	held.Release()
	y.wait(t)
	starts, _, ends := slotsRunLog(t, log)
	if len(starts) != 1 || starts[0] != "Y" || ends != 1 {
		t.Errorf("runs %v (%d ended); want only Y", starts, ends)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "queue", "codex")); len(ents) != 0 {
		t.Errorf("queue holds %d files after everyone left, want none", len(ents))
	}
}

func TestSlotsFirstComeFirstServed(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	s := resource.NewSlots(dir)
	held := slotsMustTry(t, s, "codex", 1)
	order := []string{"A", "B", "C", "D", "E"}
	var procs []*slotsProc
	for i, id := range order {
		procs = append(procs, slotsStart(t, "run",
			[]string{"DIR=" + dir, "TOOL=codex", "MAX=1", "LOG=" + log, "HOLD_MS=5", "ID=" + id}))
		slotsAwaitWaiting(t, s, "codex", i+1) // queued before the next one starts
	}
	held.Release()
	for _, p := range procs {
		p.wait(t)
	}
	starts, overlap, ends := slotsRunLog(t, log)
	if strings.Join(starts, "") != strings.Join(order, "") {
		t.Errorf("slot taken in order %v, want the queue order %v", starts, order)
	}
	if overlap != 1 || ends != len(order) {
		t.Errorf("max overlap %d, %d ended; want 1 and %d", overlap, ends, len(order))
	}
}

func TestSlotsConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 50 processes")
	}
	const runs, max = 50, 3
	dir := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	var procs []*slotsProc
	for i := range runs {
		procs = append(procs, slotsStart(t, "run", []string{
			"DIR=" + dir, "TOOL=codex", "MAX=" + strconv.Itoa(max), "LOG=" + log,
			"HOLD_MS=" + strconv.Itoa(20+i%31), "ID=" + strconv.Itoa(i),
		}))
	}
	for _, p := range procs {
		p.wait(t)
	}
	starts, overlap, ends := slotsRunLog(t, log)
	if len(starts) != runs || ends != runs {
		t.Errorf("%d runs started, %d ended; want %d", len(starts), ends, runs)
	}
	if overlap > max {
		t.Errorf("%d runs held a slot at once; max_concurrent is %d", overlap, max)
	}
	t.Logf("max overlap %d of %d", overlap, max)
	if n := slotsHeld(t, resource.NewSlots(dir), "codex", max); n != 0 {
		t.Errorf("Held = %d after all runs ended", n)
	}
}
