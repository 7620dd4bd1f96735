package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// Step statuses in results.
const (
	StepCompleted = "completed"
	StepFailed    = "failed"
	StepSkipped   = "skipped" // its Condition was false
	StepRunning   = "running" // only in a status of an unfinished run
)

// Run statuses.
const (
	RunCompleted   = "completed"
	RunFailed      = "failed"
	RunRunning     = "running"
	RunInterrupted = "interrupted" // stopped before its end (a signal, a crash): resumable
)

// Result is what one step (one iteration of it, inside a FOR) gave.
type Result struct {
	Key       string   `json:"key"` // the step number, with [i] per FOR around it
	Step      int      `json:"step"`
	Title     string   `json:"title"`
	Kind      Kind     `json:"kind"`
	Tool      string   `json:"tool,omitempty"`
	Status    string   `json:"status"`
	Output    string   `json:"output"`
	Verdict   string   `json:"verdict,omitempty"`
	ExitCode  *int     `json:"exit_code"`
	SessionID string   `json:"session_id,omitempty"`
	Attempts  int      `json:"attempts,omitempty"`
	Failure   *Failure `json:"failure,omitempty"`
	// Aborted: this failure ended the run (OnFail abort, or retries
	// spent). A resume runs the step again.
	Aborted bool `json:"aborted,omitempty"`
}

// Failure says which step failed and why, in a class scripts can branch
// on: a session's failure class for agent steps, exit_status, timed_out
// or start_failed for shell steps, no_verdict for reviews and debates,
// the child csa's error code when it refused, and condition or for_bound
// for the plan itself.
type Failure struct {
	Step      int    `json:"step,omitempty"`
	Key       string `json:"key,omitempty"`
	Title     string `json:"title,omitempty"`
	Kind      Kind   `json:"kind,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Class     string `json:"class"`
	Message   string `json:"message"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Pos       *Pos   `json:"pos,omitempty"`
}

func (f *Failure) String() string {
	if f.Step == 0 {
		return fmt.Sprintf("%s: %s", f.Class, f.Message)
	}
	s := fmt.Sprintf("step %s '%s' (%s", f.Key, f.Title, f.Kind)
	if f.Tool != "" {
		s += " " + f.Tool
	}
	return s + fmt.Sprintf(") failed: %s: %s", f.Class, f.Message)
}

// Env is what a run needs from its caller: nothing here prints or reads
// the terminal.
type Env struct {
	Exe     string   // csa itself, for agent, review and debate steps
	Environ []string // the steps' environment
	// Session loads a session, settling whether its supervisor lives.
	Session   func(ctx context.Context, id string) (*session.State, error)
	Progress  func(msg string) // one line of progress (the heartbeat too)
	Heartbeat time.Duration    // how often a running step is reported
	Grace     time.Duration    // SIGTERM to SIGKILL for steps stopped early
	Poll      time.Duration    // how often an agent step's session is read
	Now       func() time.Time
}

// Outcome is how a run ended.
type Outcome struct {
	RunID   string    `json:"run_id"`
	Name    string    `json:"name"`
	Status  string    `json:"status"`
	Failure *Failure  `json:"failure,omitempty"`
	Steps   []*Result `json:"steps"`
}

// errAbort ends a run at a failure; interrupts end it with ctx's error.
var errAbort = errors.New("workflow aborted")

type runtime struct {
	store  *Store
	info   *RunInfo
	env    Env
	j      *Journal
	done   map[string]*Result // finished before this process: not run again
	open   map[string]string  // key -> session of an attempt started but not finished
	failed map[string]int     // key -> failed attempts recorded
	latest map[int]*Result
	byKey  map[string]*Result
	loops  []loopVar
	out    *Outcome
}

type loopVar struct{ name, value string }

// Execute runs (or, when the journal has records, resumes) a run. The
// caller holds its lock. An interrupt returns ctx's cause with the outcome
// so far; a failed step is an outcome, not an error.
func Execute(ctx context.Context, store *Store, info *RunInfo, env Env) (*Outcome, error) {
	recs, err := store.Records(info.ID)
	if err != nil {
		return nil, err
	}
	j, err := store.OpenJournal(info.ID, env.Now)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	r := &runtime{store: store, info: info, env: env, j: j, byKey: map[string]*Result{}, latest: map[int]*Result{},
		out: &Outcome{RunID: info.ID, Name: info.Plan.Name}}
	r.replay(recs)
	typ := RecRunStarted
	if len(recs) > 0 {
		typ = RecRunResumed
	}
	if err := j.Append(Record{Type: typ, PID: os.Getpid()}); err != nil {
		return nil, err
	}
	err = r.nodes(ctx, info.Plan.Nodes, nil)
	switch {
	case err == nil:
		r.out.Status = RunCompleted
	case errors.Is(err, errAbort):
		r.out.Status = RunFailed
	default:
		r.out.Status = RunInterrupted
		return r.out, err
	}
	if err := j.Append(Record{Type: RecRunFinished, Status: r.out.Status, Failure: r.out.Failure}); err != nil {
		return r.out, err
	}
	return r.out, nil
}

// replay reads what an earlier process of the run did: finished steps
// (except a failure that aborted the run: a resume tries it again), and
// agent sessions started and not finished.
func (r *runtime) replay(recs []Record) {
	r.done, r.open, r.failed = map[string]*Result{}, map[string]string{}, map[string]int{}
	for _, rec := range recs {
		switch rec.Type {
		case RecStepStarted:
			delete(r.open, rec.Key)
			if rec.SessionID != "" {
				r.open[rec.Key] = rec.SessionID
			}
		case RecStepSession:
			r.open[rec.Key] = rec.SessionID
		case RecStepAttempt:
			delete(r.open, rec.Key)
			r.failed[rec.Key]++
		case RecStepFinished:
			delete(r.open, rec.Key)
			if rec.Result != nil && !rec.Result.Aborted {
				r.done[rec.Key] = rec.Result
			} else {
				r.failed[rec.Key] = 0
			}
		}
	}
}

func (r *runtime) nodes(ctx context.Context, nodes []Node, idx []int) error {
	for i := range nodes {
		n := &nodes[i]
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		var err error
		switch n.Type {
		case NodeStep:
			err = r.step(ctx, n.Step, idx)
		case NodeIf:
			var ok bool
			if ok, err = r.cond(n.Cond, n.Pos); err == nil {
				branch := n.Else
				if ok {
					branch = n.Then
				}
				err = r.nodes(ctx, branch, idx)
			}
		case NodeFor:
			err = r.loop(ctx, n, idx)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *runtime) loop(ctx context.Context, n *Node, idx []int) error {
	list, err := Expand(n.List, r.lookup, false)
	if err != nil {
		return r.planFailure("for_bound", n.Pos, err.Error())
	}
	items := SplitList(list)
	if len(items) > n.Max {
		return r.planFailure("for_bound", n.Pos, fmt.Sprintf("FOR %s: the list has %d items, more than MAX %d", n.Var, len(items), n.Max))
	}
	for i, it := range items {
		r.loops = append(r.loops, loopVar{n.Var, it})
		err := r.nodes(ctx, n.Body, append(append([]int(nil), idx...), i))
		r.loops = r.loops[:len(r.loops)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *runtime) cond(src string, pos Pos) (bool, error) {
	e, err := ParseExpr(src)
	if err == nil {
		var ok bool
		if ok, err = e.Eval(r.lookup); err == nil {
			return ok, nil
		}
	}
	return false, r.planFailure("condition", pos, fmt.Sprintf("condition %q: %v", src, err))
}

func (r *runtime) planFailure(class string, pos Pos, msg string) error {
	r.out.Failure = &Failure{Class: class, Message: msg, Pos: &pos}
	return errAbort
}

// lookup is the value of a reference now: a FOR's variable (the innermost
// first), a variable, or a field of a step's result. A step not run (its
// branch not taken) has empty fields and status "not_run".
func (r *runtime) lookup(ref Ref) (string, error) {
	if ref.Name != "" {
		for i := len(r.loops) - 1; i >= 0; i-- {
			if r.loops[i].name == ref.Name {
				return r.loops[i].value, nil
			}
		}
		if v, ok := r.info.Plan.Vars[ref.Name]; ok {
			return v, nil
		}
		return "", fmt.Errorf("no variable %s", ref.Name)
	}
	res := r.latest[ref.Step]
	if len(ref.Index) > 0 {
		res = r.byKey[stepKey(ref.Step, ref.Index)]
	}
	if res == nil {
		if ref.Field == "status" {
			return "not_run", nil
		}
		return "", nil
	}
	switch ref.Field {
	case "output":
		return res.Output, nil
	case "verdict":
		return res.Verdict, nil
	case "exit_code":
		if res.ExitCode == nil {
			return "", nil
		}
		return strconv.Itoa(*res.ExitCode), nil
	}
	return res.Status, nil
}

func stepKey(num int, idx []int) string {
	k := strconv.Itoa(num)
	for _, i := range idx {
		k += "[" + strconv.Itoa(i) + "]"
	}
	return k
}

func (r *runtime) record(res *Result) {
	r.latest[res.Step], r.byKey[res.Key] = res, res
	r.out.Steps = append(r.out.Steps, res)
}

// step runs one step instance after its predecessors, unless an earlier
// process of the run finished it.
func (r *runtime) step(ctx context.Context, s *Step, idx []int) error {
	key := stepKey(s.Num, idx)
	if res, ok := r.done[key]; ok {
		r.record(res)
		r.say("step %s '%s': %s before (not run again)", key, s.Title, res.Status)
		return nil
	}
	base := Result{Key: key, Step: s.Num, Title: s.Title, Kind: s.Kind}
	if s.Condition != "" {
		ok, err := r.cond(s.Condition, s.Pos)
		if err != nil {
			return err
		}
		if !ok {
			res := base
			res.Status = StepSkipped
			r.say("step %s '%s': skipped (condition %s is false)", key, s.Title, s.Condition)
			return r.finish(&res)
		}
	}
	tool := s.Tool
	if tool == "" && s.Kind == KindAgent && s.Tier == "" {
		tool = r.info.Plan.Tool
	}
	attempts := 1
	switch s.OnFail.Action {
	case OnFailRetry:
		attempts += s.OnFail.N
	case OnFailDelegate:
		attempts = 2
	}
	var res *Result
	for a := r.failed[key] + 1; ; a++ {
		if a > 1 && s.OnFail.Action == OnFailDelegate {
			tool = s.OnFail.Tool
		}
		var err error
		if res, err = r.attempt(ctx, s, base, tool, a); err != nil {
			return err
		}
		res.Attempts = a
		if res.Status == StepCompleted || a >= attempts {
			break
		}
		r.say("step %s '%s': attempt %d of %d failed: %s: %s", key, s.Title, a, attempts, res.Failure.Class, res.Failure.Message)
		if err := r.j.Append(Record{Type: RecStepAttempt, Key: key, Attempt: a, Result: res}); err != nil {
			return err
		}
	}
	if res.Status == StepFailed {
		r.say("%s", res.Failure)
		if s.OnFail.Action != OnFailSkip {
			res.Aborted = true
			r.out.Failure = res.Failure
		}
	} else {
		r.say("step %s '%s': %s", key, s.Title, res.Status)
	}
	if err := r.finish(res); err != nil {
		return err
	}
	if res.Aborted {
		return errAbort
	}
	return nil
}

func (r *runtime) finish(res *Result) error {
	r.record(res)
	return r.j.Append(Record{Type: RecStepFinished, Key: res.Key, Result: res})
}

// attempt runs a step once, reporting it every heartbeat while it runs.
// An agent step whose session an earlier process started is waited for,
// never started again.
func (r *runtime) attempt(ctx context.Context, s *Step, base Result, tool string, a int) (*Result, error) {
	res := base
	res.Tool = tool
	var sess atomic.Value
	sess.Store("")
	stop := r.heartbeat(s, base.Key, &sess)
	defer stop()
	// An agent attempt's session is named in step.started, before its
	// launch: one an earlier process named is launched again with that
	// id, and waited for when that launch finds it exists.
	id, resumed := r.open[base.Key]
	if resumed && s.Kind == KindAgent {
		delete(r.open, base.Key)
	} else {
		id = ""
		if s.Kind == KindAgent {
			id = session.NewID(r.env.Now())
		}
		if err := r.j.Append(Record{Type: RecStepStarted, Key: base.Key, Attempt: a, Tool: tool, SessionID: id}); err != nil {
			return nil, err
		}
	}
	sess.Store(id)
	err := r.exec(ctx, s, tool, &res, id, func(id string) error {
		return r.j.Append(Record{Type: RecStepSession, Key: base.Key, Attempt: a, SessionID: id})
	})
	if err != nil {
		return nil, err
	}
	if res.Failure != nil {
		res.Status = StepFailed
		f := res.Failure
		f.Step, f.Key, f.Title, f.Kind, f.Tool, f.SessionID = s.Num, base.Key, s.Title, s.Kind, tool, res.SessionID
		if f.ExitCode == nil {
			f.ExitCode = res.ExitCode
		}
	} else {
		res.Status = StepCompleted
	}
	return &res, nil
}

// heartbeat says every env.Heartbeat that the step still runs, so a
// parent agent's inactivity timeout never trips on a long, silent step.
func (r *runtime) heartbeat(s *Step, key string, sess *atomic.Value) (stop func()) {
	if r.env.Heartbeat <= 0 {
		return func() {}
	}
	start := r.env.Now()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(r.env.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				d := r.env.Now().Sub(start)
				if d = d.Round(time.Second); d == 0 {
					d = r.env.Heartbeat.Round(time.Millisecond) // a heartbeat shorter than a second (tests)
				}
				msg := fmt.Sprintf("step %s '%s' running for %s", key, s.Title, d)
				if id := sess.Load().(string); id != "" {
					msg += " (session " + id + ")"
				}
				r.env.Progress(msg)
			}
		}
	}()
	return func() { close(done) }
}

func (r *runtime) say(format string, a ...any) {
	if r.env.Progress != nil {
		r.env.Progress(fmt.Sprintf(format, a...))
	}
}
