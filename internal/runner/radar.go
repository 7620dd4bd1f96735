package runner

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/radar"
	"github.com/csa-dev/csa/internal/runhooks"
)

// radarPoll is how often a live worktree run's supervisor asks git what
// its worktree changes: an overlap shows within it and the time two git
// commands take (bench: OverlapSeen), at two short git processes a tick.
const radarPoll = 300 * time.Millisecond

// overlapWatch is the overlap radar of one live worktree run: from the
// program's start to its end, its supervisor reports the paths the
// worktree changes, and fires the on_overlap hooks for each path another
// live run of the repository changes too, once per pair and path
// (radar.Claim), whichever of the two supervisors sees it first.
type overlapWatch struct {
	l     *life
	g     *gittree.Git
	dir   string
	stop  chan struct{}
	done  chan struct{}
	hooks sync.WaitGroup // on_overlap hooks still running
	once  sync.Once
}

// startRadar starts the watch of a worktree run whose program started.
func (l *life) startRadar() {
	ws := l.run.State.Workspace
	if l.radar != nil || ws == nil || ws.Dir == "" || ws.Recorded {
		return
	}
	w := &overlapWatch{l: l, g: gitFor(l.s.BaseEnv), dir: radar.Dir(l.s.Store),
		stop: make(chan struct{}), done: make(chan struct{})}
	l.radar = w
	go w.loop()
}

func (w *overlapWatch) loop() {
	defer close(w.done)
	ws, id := w.l.run.State.Workspace, w.l.run.Spec.SessionID
	tick := time.NewTicker(radarPoll)
	defer tick.Stop()
	var last []string
	reported := false
	for {
		paths, err := w.g.ChangedPaths(context.Background(), ws.Dir, ws.Snapshot)
		if err == nil && (!reported || !slices.Equal(paths, last)) {
			reported = radar.Write(w.dir, radar.Report{ID: id, Repo: ws.Repo, Branch: ws.Branch, Paths: paths}) == nil
			last = paths
		}
		if err == nil && len(paths) > 0 {
			w.check()
		}
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
	}
}

// check fires the hooks of the overlaps of this run not fired yet, with
// runs whose supervisor is alive (a killed one leaves its report behind).
func (w *overlapWatch) check() {
	sp := w.l.run.Spec
	if !sp.Hooks.Has(runhooks.OnOverlap) {
		return
	}
	reports, err := radar.Read(w.dir)
	if err != nil {
		return
	}
	for _, o := range radar.Find(reports)[sp.SessionID] {
		if !w.l.s.Store.SupervisorAlive(o.With) {
			continue
		}
		fresh, _ := radar.Claim(w.dir, sp.SessionID, o.With, o.Paths)
		if len(fresh) == 0 {
			continue
		}
		st := w.l.run.State
		if cur, err := w.l.s.Store.Load(st.ID); err == nil {
			st = cur
		}
		vars := HookVars(w.l.s.Store, st)
		vars.OverlapWith, vars.OverlapPaths = o.With, strings.Join(fresh, "\n")
		env := w.l.hookEnv()
		w.hooks.Add(1)
		go func() {
			defer w.hooks.Done()
			w.l.recordHooks(sp.Hooks.Fire(context.Background(), runhooks.OnOverlap, vars, env))
		}()
	}
}

// end stops the watch once the program has ended, lets its hooks end
// (each bounded by its timeout: the session's end stays its last event),
// and withdraws the run's report and claims.
func (w *overlapWatch) end() {
	if w == nil {
		return
	}
	w.once.Do(func() {
		close(w.stop)
		<-w.done
		w.hooks.Wait()
		radar.Remove(w.dir, w.l.run.Spec.SessionID)
	})
}
