package interactive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/tmux"
)

// Target is one interactive session to observe.
type Target struct {
	Dir          string // the session's directory
	State        *session.State
	WrapperAlive bool
	// Reload reads the session's state again (nil: it is not). State was
	// read before the exit record: the wrapper may have recorded the end
	// (with its reason, an OOM kill) and written the exit record since.
	Reload func() (*session.State, error)
}

// Observer gathers observations of many sessions with one process-table
// read and one tmux call per server.
type Observer struct {
	TmuxBin string
	Now     func() time.Time
	// FromHeartbeat takes the agent's process, its tree's size and CPU
	// from the pane wrapper's heartbeat (at most a second old) rather than
	// from a read of the whole process table, which it makes only for a
	// session with no heartbeat yet: for views that observe every second.
	FromHeartbeat bool

	table   *proc.Table
	scanErr error
	panes   map[string]map[string]tmux.Pane // socket -> session name -> pane
	paneErr map[string]error
}

// Observe returns the observation of each target, in order.
func (ob *Observer) Observe(ctx context.Context, targets []Target) []Observation {
	ob.table, ob.scanErr = nil, nil
	if !ob.FromHeartbeat {
		ob.scan()
	}
	ob.panes, ob.paneErr = map[string]map[string]tmux.Pane{}, map[string]error{}
	out := make([]Observation, len(targets))
	for i, t := range targets {
		out[i] = ob.observe(ctx, t)
	}
	return out
}

func (ob *Observer) observe(ctx context.Context, t Target) Observation {
	st := t.State
	o := Observation{
		Now: ob.Now(), StartedAt: st.CreatedAt, Record: st.Status, RecordReason: recordReason(st),
		WrapperAlive: t.WrapperAlive,
	}
	if !st.StartedAt.IsZero() {
		o.StartedAt = st.StartedAt
	}
	ix := st.Interactive
	if ix == nil {
		return o
	}
	o.RunID, o.Hooks = ix.RunID, ix.Hooks
	o.Done, o.DoneErr = readDone(t.Dir)
	if fi, err := os.Stat(filepath.Join(t.Dir, PaneLog)); err == nil {
		o.OutputBytes, o.OutputAt = fi.Size(), fi.ModTime()
	}
	o.Turns, o.TurnsErr = ReadTurns(t.Dir)
	if o.Done != nil || o.Record.Ended() {
		return o.catchUp(t)
	}
	panes, err := ob.serverPanes(ctx, ix.Socket)
	if err != nil {
		o.TmuxErr = err
		return o
	}
	if p, ok := panes[ix.TmuxSession]; ok {
		o.Pane = &PaneInfo{PID: p.PID, Dead: p.Dead, DeadStatus: p.DeadStatus, Command: p.Command}
	}
	if o.Pane == nil || o.Pane.Dead {
		// The agent may have exited since its exit record was read: the
		// wrapper writes it before the pane goes.
		if o.Done, o.DoneErr = readDone(t.Dir); o.Done != nil {
			return o.catchUp(t)
		}
	}
	var hb Heartbeat
	if err := ReadJSON(filepath.Join(t.Dir, HeartbeatFile), &hb); err == nil {
		o.Heartbeat = &hb
	} else if !errors.Is(err, os.ErrNotExist) {
		o.HeartbeatErr = err
	}
	if ob.FromHeartbeat && o.Heartbeat != nil && o.Pane != nil && proc.Alive(hb.AgentPID) {
		o.AgentPID, o.AgentProcs, o.TreeCPU = hb.AgentPID, hb.Procs, hb.CPUTicks
		return o
	}
	if ob.table == nil && ob.scanErr == nil {
		ob.scan()
	}
	o.ScanErr = ob.scanErr
	if o.Pane != nil && ob.table != nil {
		if kids := ob.table.Children(o.Pane.PID); len(kids) > 0 {
			o.AgentPID = kids[0]
			o.AgentProcs = 1 + len(ob.table.Descendants(o.AgentPID))
			o.TreeCPU = ob.table.TreeCPU(o.AgentPID)
		}
	}
	return o
}

// scan reads the process table (once per Observe).
func (ob *Observer) scan() { ob.table, ob.scanErr = proc.ReadTable() }

// catchUp takes the session's end from its state when the exit record was
// found after the state was read: the wrapper records the end first.
func (o Observation) catchUp(t Target) Observation {
	if o.Done == nil || o.Record.Ended() || t.Reload == nil {
		return o
	}
	if st, err := t.Reload(); err == nil && st.Status.Ended() {
		o.Record, o.RecordReason = st.Status, recordReason(st)
		*t.State = *st
	}
	return o
}

// readDone reads the exit record (nil while the agent runs).
func readDone(dir string) (*Done, error) {
	var d Done
	err := ReadJSON(filepath.Join(dir, DoneFile), &d)
	if err == nil {
		return &d, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return nil, err
}

func (ob *Observer) serverPanes(ctx context.Context, socket string) (map[string]tmux.Pane, error) {
	if p, ok := ob.panes[socket]; ok {
		return p, nil
	}
	if err, ok := ob.paneErr[socket]; ok {
		return nil, err
	}
	p, err := tmux.Server{Bin: ob.TmuxBin, Socket: socket}.Panes(ctx)
	if err != nil {
		ob.paneErr[socket] = err
		return nil, err
	}
	ob.panes[socket] = p
	return p, nil
}

// recordReason is the recorded reason of a session's end, naming a hook's
// refusal as such: its agent never started, and nothing crashed.
func recordReason(st *session.State) string {
	if f := st.Failure; f != nil && f.Class == session.FailRefused {
		return "refused: " + st.Reason
	}
	return st.Reason
}
