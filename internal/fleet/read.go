package fleet

import (
	"context"
	"time"

	"github.com/csa-dev/csa/internal/interactive"
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
}

// entry is what the reader keeps of one session.
type entry struct {
	row   Row
	ended bool // row is final
	tail  tail
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
		ents, err := s.Summaries()
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.Err != nil || e.Summary == nil {
				continue // starting, or broken (csa ps reports those)
			}
			seen[e.ID] = true
			k := r.known[e.ID]
			if k != nil && k.ended && e.Summary.Status.Ended() {
				snap.Rows = append(snap.Rows, &k.row)
				continue
			}
			st, err := s.Load(e.ID)
			if err != nil {
				continue
			}
			if !st.Status.Ended() {
				st = runner.Reconcile(ctx, s, st, now)
			}
			if k == nil {
				k = &entry{}
				r.known[e.ID] = k
			}
			k.fill(st)
			snap.Rows = append(snap.Rows, &k.row)
			live = append(live, liveSession{store: s, st: st, e: k})
		}
	}
	for id := range r.known {
		if !seen[id] {
			delete(r.known, id) // removed (csa rm, gc)
		}
	}
	r.refresh(ctx, live)
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
	r.setClass(classOf(st.Status))
	e.ended = st.Status.Ended() && st.Interactive == nil
}

func (r *Row) setClass(c Class) { r.Class, r.Symbol, r.Label = c, c.Symbol(), c.Label() }

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
		ob := &interactive.Observer{TmuxBin: r.TmuxBin, Now: r.Now}
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
		row.MemoryMB = 0
		if !l.st.Status.Ended() && pid > 0 {
			row.MemoryMB = treeRSS(pid) >> 20
			row.PeakMemoryMB = max(row.PeakMemoryMB, row.MemoryMB)
		}
		l.e.tail.read(l.store.Dir(row.ID), l.st.Interactive != nil)
		l.e.tail.apply(row)
	}
}
