package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/testkit/tmpfstest"
)

// onTmpfs is an env whose state directory is on a small tmpfs of its own,
// which a run's output fills; it returns the mount.
func onTmpfs(t *testing.T, e *env, size int64) string {
	t.Helper()
	mnt := tmpfstest.Mount(t, size)
	e.vars = append(e.vars, "CSA_STATE_DIR="+filepath.Join(mnt, "state"))
	t.Cleanup(func() { killTagged("CSA_STATE_DIR=" + filepath.Join(mnt, "state")) })
	return mnt
}

// sessionDir is the one session's directory under the mount.
func sessionDir(t *testing.T, mnt string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(mnt, "state", "projects", "*", "sessions", "[0-9A-Z]*"))
	if len(dirs) != 1 {
		t.Fatalf("want one session directory, found %v", dirs)
	}
	return dirs[0]
}

// endsNoSpace checks a row and the session's files for the truth of a run
// stopped by a full disk: failed, no_space, the reason naming the error
// and a file, and not a dead supervisor.
func endsNoSpace(t *testing.T, r psRow, state, reason string) {
	t.Helper()
	if r.State != state {
		t.Errorf("state %q, want %q", r.State, state)
	}
	if !strings.Contains(reason, "no space left on device") || strings.Contains(reason, "supervising csa") {
		t.Errorf("reason %q: want it to name ENOSPC, and not a dead supervisor", reason)
	}
}

// endEvents checks that every line of events.jsonl is an event and the
// last is session.ended, and returns that event's reason.
func endEvents(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, session.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Fatalf("events.jsonl ends in a torn line: ...%q", b[max(0, len(b)-100):])
	}
	evs, bad, err := events.Read(bytes.NewReader(b))
	if err != nil || bad != 0 || len(evs) == 0 {
		t.Fatalf("events.jsonl: %d events, %d lines that are not (%v)", len(evs), bad, err)
	}
	last := evs[len(evs)-1]
	var d struct{ State, Reason string }
	json.Unmarshal(last.Data, &d)
	if last.Type != events.SessionEnded || d.State != "failed" {
		t.Fatalf("last event %s %s, want session.ended, failed", last.Type, last.Data)
	}
	return d.Reason
}

// A run whose output fills the disk its session is on is stopped and
// ends failed, no_space, its reason naming output.log, with every event
// whole and session.ended last — written while the disk is still full,
// from the space set aside. Foreground and detached alike.
func TestFullDiskEndsTheRunFailed(t *testing.T) {
	for _, detach := range []bool{false, true} {
		name := map[bool]string{false: "foreground", true: "detached"}[detach]
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			mnt := onTmpfs(t, e, 2<<20)
			// Flood more than the disk holds, then wait: a run not stopped
			// for the full disk goes on for a minute.
			prompt := "flood 5000000; sleep 60s"
			var r psRow
			if detach {
				e.csa(0, "run", "-d", "--tool", "codex", prompt)
				for deadline := time.Now().Add(waitBound); ; time.Sleep(20 * time.Millisecond) {
					if rows := e.ps(); len(rows) == 1 && rows[0].State != "running" && rows[0].State != "pending" {
						r = rows[0]
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the run did not end: %+v", e.ps())
					}
				}
			} else {
				var res struct {
					Status  string
					Failure *session.Failure
				}
				out := e.csa(1, "run", "--json", "--tool", "codex", prompt)
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("csa run --json printed %q: %v", out, err)
				}
				if res.Status != "failed" || res.Failure == nil || res.Failure.Class != session.FailNoSpace {
					t.Fatalf("run: %s %+v, want failed, no_space", res.Status, res.Failure)
				}
				rows := e.ps()
				if len(rows) != 1 {
					t.Fatalf("ps: %+v", rows)
				}
				r = rows[0]
			}
			dir := sessionDir(t, mnt)
			endsNoSpace(t, r, "failed", r.Reason)
			if !strings.Contains(r.Reason, filepath.Join(dir, session.OutputFile)) {
				t.Errorf("reason %q does not name output.log", r.Reason)
			}
			var st session.State
			json.Unmarshal([]byte(e.csa(0, "inspect", "--json", r.ID)), &st)
			if st.Failure == nil || st.Failure.Class != session.FailNoSpace || !st.OutputTruncated {
				t.Errorf("inspect: failure %+v, output_truncated %v; want no_space, true", st.Failure, st.OutputTruncated)
			}
			if reason := endEvents(t, dir); reason != r.Reason {
				t.Errorf("session.ended says %q, the state %q", reason, r.Reason)
			}
			// The end was written from the space set aside.
			if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dir)), session.ReserveFile)); err == nil {
				t.Errorf("the space set aside for the end is unused")
			}
			if names, _ := filepath.Glob(filepath.Join(dir, "end.*")); len(names) > 0 {
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

// Where there is no space set aside for the end (here it is taken away
// mid-run; another run may have used it), the supervisor that cannot record it leaves word: readers
// say failed, no space, while the disk is full, and record it once
// space returns; nobody blames the supervisor.
func TestFullDiskWithoutReserve(t *testing.T) {
	e := newEnv(t)
	mnt := onTmpfs(t, e, 2<<20)
	goFile := filepath.Join(e.dir, "go")
	c := e.cmd("run", "--tool", "codex", "waitfile "+goFile+"; flood 5000000; sleep 60s")
	var errb bytes.Buffer
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e.waitRunning()
	dir := sessionDir(t, mnt)
	if err := os.Remove(filepath.Join(filepath.Dir(filepath.Dir(dir)), session.ReserveFile)); err != nil {
		t.Fatalf("no space was set aside at the start: %v", err)
	}
	os.WriteFile(goFile, nil, 0o600)
	err := c.Wait()
	if err == nil || !strings.Contains(errb.String(), "no space left on device") {
		t.Fatalf("csa run: %v, stderr %q; want a failure naming ENOSPC", err, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, session.NoSpaceFile)); err != nil {
		t.Fatalf("the supervisor left no word of the end it could not record: %v", err)
	}
	endEvents(t, dir)
	t.Logf("csa run: %v: %s", err, errb.String())

	// The room the supervisor kept for its events went back when it
	// exited: take it, the disk stays full.
	filler := tmpfstest.Fill(t, mnt)
	rows := e.ps()
	if len(rows) != 1 {
		t.Fatalf("ps: %+v", rows)
	}
	endsNoSpace(t, rows[0], "failed", rows[0].Reason)
	b, _ := os.ReadFile(filepath.Join(dir, session.StateFile))
	if !bytes.Contains(b, []byte("state = 'running'")) {
		t.Fatalf("the disk is full, yet the end was recorded: %s", b)
	}

	os.Remove(filler)
	rows = e.ps()
	endsNoSpace(t, rows[0], "failed", rows[0].Reason)
	b, _ = os.ReadFile(filepath.Join(dir, session.StateFile))
	if !bytes.Contains(b, []byte("state = 'failed'")) || !bytes.Contains(b, []byte("class = 'no_space'")) {
		t.Fatalf("space came back, the end is not recorded: %s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, session.NoSpaceFile)); err == nil {
		t.Error("the marker outlived the record of the end")
	}
}

// allocated is how much disk a file takes.
func allocated(t *testing.T, path string) (size, blocks int64) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Size, st.Blocks * 512
}

// A supervisor killed mid-run leaves the room it kept past the end of
// events.jsonl; the csa that records the crash gives it back.
func TestCrashGivesBackEventsRoom(t *testing.T) {
	e := newEnv(t)
	mnt := onTmpfs(t, e, 2<<20)
	c := e.cmd("run", "--tool", "codex", "echo up; sleep 60s")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e.waitRunning()
	evPath := filepath.Join(sessionDir(t, mnt), session.EventsFile)
	if size, blocks := allocated(t, evPath); blocks < size+12<<10 {
		t.Fatalf("events.jsonl: %d bytes on %d of disk, want room kept past its end", size, blocks)
	}
	c.Process.Kill()
	c.Wait()
	if rows := e.ps(); len(rows) != 1 || rows[0].State != "crashed" {
		t.Fatalf("ps: %+v, want one crashed session", rows)
	}
	if size, blocks := allocated(t, evPath); blocks > (size+4095)/4096*4096 {
		t.Errorf("events.jsonl: %d bytes still on %d of disk", size, blocks)
	}
}

// A disk already full when a run begins (the store's reserve made by an
// earlier run) ends it before its program starts: failed, no_space, no
// program run.
func TestFullDiskBeforeTheStart(t *testing.T) {
	e := newEnv(t)
	mnt := onTmpfs(t, e, 2<<20)
	e.csa(0, "run", "--tool", "codex", "echo first")
	tmpfstest.Fill(t, mnt)
	ran := filepath.Join(e.dir, "ran")
	out := e.csa(1, "run", "--json", "--tool", "codex", "pidfile "+ran+"; sleep 60s")
	var res struct {
		ID       string `json:"session_id"`
		Status   string
		ExitCode *int `json:"exit_code"`
		Failure  *session.Failure
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("csa run --json printed %q: %v", out, err)
	}
	if res.Status != "failed" || res.Failure == nil || res.Failure.Class != session.FailNoSpace || res.ExitCode != nil ||
		!strings.Contains(res.Failure.Message, "events.jsonl: no space left on device") {
		t.Fatalf("run: %s, exit %v, %+v; want failed, no_space naming events.jsonl, no exit code", res.Status, res.ExitCode, res.Failure)
	}
	var st session.State
	json.Unmarshal([]byte(e.csa(0, "inspect", "--json", res.ID)), &st)
	if st.PID != 0 {
		t.Errorf("a program was started (pid %d)", st.PID)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the agent ran")
	}
}

// An interactive session that cannot be prepared on a full disk is
// refused with code no_space, and leaves no session directory behind (it
// was code internal, and a directory without a state).
func TestFullDiskBeforeAnInteractiveStart(t *testing.T) {
	e := newEnv(t)
	mnt := onTmpfs(t, e, 2<<20)
	e.csa(0, "run", "--tool", "codex", "echo first")
	before, _ := filepath.Glob(filepath.Join(mnt, "state", "projects", "*", "sessions", "[0-9A-Z]*"))
	tmpfstest.Fill(t, mnt)
	c := e.cmd("run", "-i", "--json", "--tool", "codex", "echo hi")
	var errb bytes.Buffer
	c.Stderr = &errb
	c.Run()
	var out struct {
		Error struct{ Code, Message string }
	}
	json.Unmarshal(errb.Bytes(), &out)
	if c.ProcessState.ExitCode() != 1 || out.Error.Code != session.FailNoSpace || !strings.Contains(out.Error.Message, "no space left on device") {
		t.Fatalf("exit %d, stderr %q; want 1 and code no_space", c.ProcessState.ExitCode(), errb.String())
	}
	after, _ := filepath.Glob(filepath.Join(mnt, "state", "projects", "*", "sessions", "[0-9A-Z]*"))
	if len(after) != len(before) {
		t.Fatalf("session directories %v, want only %v", after, before)
	}
}
