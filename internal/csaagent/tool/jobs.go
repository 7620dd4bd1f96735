package tool

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/csa-dev/csa/internal/proc"
)

// KillGrace is how long a signalled process group has between SIGTERM and
// SIGKILL.
var KillGrace = time.Second

// Job states.
const (
	JobRunning = "running"
	JobExited  = "exited"
	JobKilled  = "killed"
)

// Jobs are the background shell jobs of an agent (Bash with
// run_in_background, BashOutput, KillShell). Each runs `bash -c` in its own
// process group, writing stdout and stderr straight into a file under the
// directory (no copying goroutine, so nothing outlives the process). Safe
// for concurrent use.
type Jobs struct {
	dir string

	mu   sync.Mutex
	seq  int
	jobs map[string]*job
}

type job struct {
	id, command, output string
	p                   *proc.Process

	mu     sync.Mutex
	read   int64 // bytes of output already returned
	killed bool
}

// JobState is a snapshot of a job, with the output read by ReadNew.
type JobState struct {
	ID         string
	Command    string
	Status     string // JobRunning, JobExited, JobKilled
	ExitCode   int    // -1 while running or when killed by a signal
	OutputPath string // the job's whole output
	New        string // output since the previous ReadNew
	More       bool   // New was capped: more unread output is waiting
}

// NewJobs keeps job output under dir (a temporary directory when "").
func NewJobs(dir string) *Jobs { return &Jobs{dir: dir, jobs: map[string]*job{}} }

// Start runs command in the background in cwd and returns its id.
func (j *Jobs) Start(command, cwd string) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.jobs == nil {
		j.jobs = map[string]*job{}
	}
	if j.dir == "" {
		d, err := os.MkdirTemp("", "csa-jobs-")
		if err != nil {
			return "", err
		}
		j.dir = d
	}
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return "", err
	}
	j.seq++
	id := fmt.Sprintf("bash_%d", j.seq)
	out := filepath.Join(j.dir, id+".out")
	f, err := os.OpenFile(out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close() // the child holds its own copy
	p, err := proc.Start(proc.Spec{
		Path: "bash", Args: []string{"-c", command}, Dir: cwd,
		Stdout: f, Stderr: f, DieWithParent: true,
	})
	if err != nil {
		return "", err
	}
	j.jobs[id] = &job{id: id, command: command, output: out, p: p}
	return id, nil
}

func (j *Jobs) get(id string) (*job, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if jb, ok := j.jobs[id]; ok {
		return jb, nil
	}
	return nil, fmt.Errorf("no background shell %q", id)
}

// ReadNew returns the job's state and up to max bytes of output it has
// not returned before (all of it when max <= 0).
func (j *Jobs) ReadNew(id string, max int) (JobState, error) {
	jb, err := j.get(id)
	if err != nil {
		return JobState{}, err
	}
	// The state is taken before reading, so an exited job's output is
	// complete when the status says so.
	st := jb.state()
	jb.mu.Lock()
	defer jb.mu.Unlock()
	f, err := os.Open(jb.output)
	if err != nil {
		return st, err
	}
	defer f.Close()
	if _, err := f.Seek(jb.read, io.SeekStart); err != nil {
		return st, err
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, int64(max)+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return st, err
	}
	if max > 0 && len(b) > max {
		b, st.More = b[:max], true
		// Stop before a split rune; it is returned whole next time.
		for len(b) > 0 && !utf8.FullRune(b[lastRuneStart(b):]) {
			b = b[:lastRuneStart(b)]
		}
	}
	jb.read += int64(len(b))
	st.New = string(b)
	return st, nil
}

func lastRuneStart(b []byte) int {
	i := len(b) - 1
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

func (jb *job) state() JobState {
	st := JobState{ID: jb.id, Command: jb.command, OutputPath: jb.output, Status: JobRunning, ExitCode: -1}
	select {
	case <-jb.p.Done():
		ps := jb.p.Wait()
		jb.mu.Lock()
		killed := jb.killed
		jb.mu.Unlock()
		st.Status = JobExited
		if killed {
			st.Status = JobKilled
		}
		if ps != nil {
			st.ExitCode = ps.ExitCode()
		}
	default:
	}
	return st
}

// Kill ends the job's whole process group (SIGTERM, then SIGKILL after
// KillGrace) and waits for it. Killing a finished job is an error.
func (j *Jobs) Kill(id string) (JobState, error) {
	jb, err := j.get(id)
	if err != nil {
		return JobState{}, err
	}
	if st := jb.state(); st.Status != JobRunning {
		return st, fmt.Errorf("background shell %s is not running (%s)", id, st.Status)
	}
	jb.stop()
	return jb.state(), nil
}

func (jb *job) stop() {
	jb.mu.Lock()
	jb.killed = true
	jb.mu.Unlock()
	jb.p.Terminate(KillGrace)
}

// KillAll ends every running job (the agent is exiting) and waits for them.
func (j *Jobs) KillAll() {
	j.mu.Lock()
	var running []*job
	for _, jb := range j.jobs {
		if jb.state().Status == JobRunning {
			running = append(running, jb)
		}
	}
	j.mu.Unlock()
	var wg sync.WaitGroup
	for _, jb := range running {
		wg.Add(1)
		go func() { defer wg.Done(); jb.stop() }()
	}
	wg.Wait()
}

// List is every job's state, by id, without reading output.
func (j *Jobs) List() []JobState {
	j.mu.Lock()
	out := make([]JobState, 0, len(j.jobs))
	for _, jb := range j.jobs {
		out = append(out, jb.state())
	}
	j.mu.Unlock()
	sort.Slice(out, func(a, b int) bool {
		return len(out[a].ID) < len(out[b].ID) || len(out[a].ID) == len(out[b].ID) && out[a].ID < out[b].ID
	})
	return out
}
