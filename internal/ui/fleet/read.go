package fleet

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/radar"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Reader takes snapshots of the sessions of some stores. It keeps what it
// learnt between snapshots (the rows of ended sessions, how far each log
// was read, the peak memory seen), so that a snapshot of many live
// sessions costs little more than reading what changed. Not safe for
// concurrent use.
type Reader struct {
	// Stores lists the stores to read, at each snapshot (projects come
	// and go under csa top --all).
	Stores func() ([]*session.Store, error)
	// Classifier tunes the classification of interactive sessions.
	Classifier interactive.Settings
	// TmuxBin is the tmux program ("" when there is none).
	TmuxBin string
	Now     func() time.Time

	known map[string]*entry
	fresh [3]int64 // the identity of the state file of a session new to the reader
	snaps int      // snapshots taken
}

// entry is what the reader keeps of one session.
type entry struct {
	row   Row
	ended bool // row is final
	tail  tail
	// st is the state last read, and the identity of the file it came
	// from: a state file not replaced since is not decoded again.
	st     *session.State
	stated [3]int64
}

// load reads a session's state, again only when its file was replaced
// (every save renames a new file over it).
func (r *Reader) load(s *session.Store, id string, k *entry) (*session.State, bool) {
	fi, err := os.Stat(s.Path(id, session.StateFile))
	if err != nil {
		return nil, false
	}
	ident := [3]int64{fi.ModTime().UnixNano(), fi.Size()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		ident[2] = int64(sys.Ino)
	}
	if k != nil && k.st != nil && k.stated == ident {
		return k.st, true
	}
	st, err := s.Load(id)
	if err != nil {
		return nil, false
	}
	if k != nil {
		k.stated = ident
	} else {
		r.fresh = ident
	}
	return st, true
}

// Snapshot reads every session: ended ones once, live ones each time
// (reconciled as csa ps does, interactive ones classified together with
// one process-table read and one tmux call per server).
func (r *Reader) Snapshot(ctx context.Context) (*Snapshot, error) {
	if r.known == nil {
		r.known = map[string]*entry{}
	}
	stores, err := r.Stores()
	if err != nil {
		return nil, err
	}
	now := r.Now()
	snap := &Snapshot{At: now}
	seen := map[string]bool{}
	var live []liveSession
	for _, s := range stores {
		worktrees := map[string]*Row{} // the store's live worktree runs
		ids, err := s.IDs()
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			k := r.known[id]
			if k != nil && k.ended {
				seen[id] = true
				snap.Rows = append(snap.Rows, &k.row)
				continue
			}
			st, ok := r.load(s, id, k)
			if !ok {
				continue // starting, or broken (csa ps reports those)
			}
			seen[id] = true
			if k == nil {
				k = &entry{stated: r.fresh}
				r.known[id] = k
			}
			if !st.Status.Ended() {
				st = runner.Reconcile(ctx, s, st, now)
			}
			k.st = st
			k.fill(st)
			snap.Rows = append(snap.Rows, &k.row)
			live = append(live, liveSession{store: s, st: st, e: k})
			if ws := st.Workspace; ws != nil && !ws.Recorded && !st.Status.Ended() {
				worktrees[id] = &k.row
			}
		}
		radarOf(s, worktrees)
	}
	for id := range r.known {
		if !seen[id] {
			delete(r.known, id) // removed (csa rm, gc)
		}
	}
	r.refresh(ctx, live)
	r.snaps++
	return snap, nil
}

type liveSession struct {
	store *session.Store
	st    *session.State
	e     *entry
}

// fill sets what the recorded state says.
func (e *entry) fill(st *session.State) {
	prev, r := e.row, &e.row
	*r = Row{ID: st.ID, Project: st.ProjectRoot, Cwd: st.Cwd, Tool: st.Tool, Model: st.Model, ParentID: st.ParentID, Depth: st.Depth,
		Interactive: st.Interactive != nil, State: string(st.Status), Reason: st.Reason, CreatedAt: st.CreatedAt,
		EndedAt: st.EndedAt, PeakMemoryMB: max(st.PeakMemoryMB, prev.PeakMemoryMB), MemoryMB: prev.MemoryMB,
		Retries: st.AgentRetries, Tier: st.Tier, Failovers: len(st.FallbackChain), LastLine: prev.LastLine,
		InputTokens: prev.InputTokens, OutputTokens: prev.OutputTokens}
	if r.Retries < e.tail.retries {
		r.Retries = e.tail.retries
	}
	if u := st.Usage; u != nil {
		r.InputTokens, r.OutputTokens = u.InputTokens, u.OutputTokens
	}
	if ws := st.Workspace; ws != nil {
		r.Branch, r.Recorded = ws.Branch, ws.Recorded
		r.Files, r.Insertions, r.Deletions = ws.Files, ws.Insertions, ws.Deletions
	}
	r.setClass(classOf(st.Status))
	e.ended = st.Status.Ended() && st.Interactive == nil
}

func (r *Row) setClass(c Class) { r.Class, r.Symbol, r.Label = c, c.Symbol(), c.Label() }

// memEvery: the memory of a live session's process tree is read every
// memEvery snapshots (reading it walks every thread of the tree).
const memEvery = 5

// refresh adds what only live sessions have: the classifier's verdict of
// interactive ones, memory, and what their logs said since last time.
func (r *Reader) refresh(ctx context.Context, live []liveSession) {
	var targets []interactive.Target
	var ix []liveSession
	for _, l := range live {
		if l.st.Interactive == nil {
			continue
		}
		l := l
		targets = append(targets, interactive.Target{Dir: l.store.Dir(l.st.ID), State: l.st, WrapperAlive: !l.st.Status.Ended(),
			Reload: func() (*session.State, error) { return l.store.Load(l.st.ID) }})
		ix = append(ix, l)
	}
	agent := map[string]int{}
	if len(targets) > 0 {
		ob := &interactive.Observer{TmuxBin: r.TmuxBin, Now: r.Now, FromHeartbeat: true}
		for i, o := range ob.Observe(ctx, targets) {
			v := interactive.Classify(o, r.Classifier)
			row := &ix[i].e.row
			row.State, row.Reason = string(v.State), v.Reason
			row.setClass(classOfVerdict(v))
			interactive.NoteState(targets[i].Dir, v)
			agent[row.ID] = v.Signals.AgentPID
			// An ended interactive session's verdict is final too.
			ix[i].e.ended = v.State.Terminal() && o.Record.Ended()
		}
	}
	for _, l := range live {
		row := &l.e.row
		pid := l.st.PID
		if l.st.Interactive != nil {
			pid = agent[row.ID]
		}
		switch {
		case l.st.Status.Ended() || pid == 0:
			row.MemoryMB = 0
		case r.snaps%memEvery == 0 || row.MemoryMB == 0:
			row.MemoryMB = treeRSS(pid) >> 20
			row.PeakMemoryMB = max(row.PeakMemoryMB, row.MemoryMB)
		}
		l.e.tail.read(l.store.Dir(row.ID), l.st.Interactive != nil)
		l.e.tail.apply(row)
	}
}

// radarOf adds to the rows of a store's live worktree runs what their
// supervisors report: the paths each changes so far, and the runs
// changing some of the same files.
func radarOf(s *session.Store, rows map[string]*Row) {
	if len(rows) == 0 {
		return
	}
	reports, err := radar.Read(radar.Dir(s))
	if err != nil {
		return
	}
	kept := reports[:0]
	for _, rep := range reports {
		if r := rows[rep.ID]; r != nil {
			r.Files = len(rep.Paths)
			kept = append(kept, rep)
		}
	}
	for id, ovs := range radar.Find(kept) {
		rows[id].Overlaps = ovs
	}
}
