package runner

import (
	"encoding/json"
	"fmt"
	"os"
	ossignal "os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/session"
)

// cpuNoise is the CPU growth (clock ticks per heartbeat, 5% of a core) an
// idle interface's timers may cause; more counts as activity. Measured
// idle (ticks per second): the fake agent 0, Codex 0, Claude Code 2.2,
// OpenCode (bun) about 4.
const cpuNoise = 5

// RunPane is the pane wrapper (csa __pane): the process a tmux pane runs.
// It takes the session's supervisor lock from `csa run -i`, starts the
// agent as the terminal's foreground job, writes a heartbeat with the CPU
// of the agent's process tree, and when the agent exits records a done file
// (run id and exit status) and the session's end. It returns the agent's
// exit status.
func RunPane(store *session.Store, id string, now func() time.Time) int {
	dir := store.Dir(id)
	h, err := lock.AcquireWait(store.Path(id, session.SupervisorLock), 10*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", err)
		return 1
	}
	run, err := Adopt(store, id, h)
	if err != nil {
		h.Release()
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", err)
		return 1
	}
	// SIGINT (Ctrl-C typed in the pane) is the agent's to handle; SIGHUP
	// (pane closed) and SIGTERM (csa kill) end the agent.
	sigs := make(chan os.Signal, 4)
	ossignal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGCONT)
	w := &paneWrapper{sup: &Supervisor{Store: store, Now: now}, r: run, dir: dir, sigs: sigs}
	return w.serve()
}

type paneWrapper struct {
	sup  *Supervisor
	r    *Run
	dir  string
	sigs chan os.Signal
}

func (w *paneWrapper) serve() int {
	defer w.r.Release()
	sp, st, store := w.r.Spec, w.r.State, w.sup.Store
	envPath := filepath.Join(w.dir, interactive.EnvFile)
	base, err := os.ReadFile(envPath)
	os.Remove(envPath) // it may hold secrets: read once
	ev, evErr := events.OpenWriter(store.Path(sp.SessionID, session.EventsFile), w.sup.Now)
	if evErr != nil {
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", evErr)
		return 1
	}
	defer ev.Close()
	ev.Emit(events.SessionCreated, map[string]any{"tool": sp.Tool, "depth": st.Depth, "parent_id": st.ParentID, "interactive": true})
	if err != nil {
		return w.end(ev, nil, &ending{session.Failed, session.FailStart, "cannot read the agent's environment: " + err.Error()}, nil)
	}
	if req := w.sup.killRequested(sp.SessionID); req != "" {
		return w.end(ev, nil, &ending{session.Killed, session.FailKilled, req}, nil)
	}
	prog, args, group, err := confine(sp)
	if err != nil {
		return w.end(ev, nil, &ending{session.Failed, session.FailStart, "cannot set up resource limits: " + err.Error()}, nil)
	}
	p, err := proc.Start(proc.Spec{
		Path: prog, Args: args, Dir: sp.Cwd, InTerminal: true,
		Env:   childEnv(decodeEnv(base), st, w.dir, sp.Env),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
	})
	if err != nil {
		measure(group, nil, nil)
		fmt.Fprintln(os.Stderr, "csa:", err)
		return w.end(ev, nil, &ending{session.Failed, session.FailStart, err.Error()}, nil)
	}
	if _, err := w.sup.update(w.r, func(cur *session.State) error {
		cur.PID, cur.PGID, cur.SupervisorPID, cur.StartedAt = p.Pid, syscall.Getpgrp(), os.Getpid(), w.sup.Now().UTC()
		cur.Interactive.PanePID = os.Getpid()
		cur.Turns++
		return cur.Move(session.Running)
	}); err != nil {
		p.Terminate(sp.Grace)
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", err)
		return 1
	}
	ev.Emit(events.ProcessStarted, map[string]any{"pid": p.Pid, "program": sp.Program, "sandbox": sp.Sandbox.Plan.Layer})
	var sampler *resource.Sampler
	if iv := sp.Sandbox.SampleInterval; iv > 0 {
		sampler = resource.StartSampler(p.Pid, iv)
	}
	interactive.Append(w.dir, interactive.EvAgentStarted, map[string]any{"pid": p.Pid, "wrapper_pid": os.Getpid()})

	end := w.watch(p, ev)
	ps := p.Wait()
	// Whatever the agent left in its tree goes with it.
	for _, pid := range proc.TaggedMembers(syscall.Getpgrp(), EnvSessionID+"="+sp.SessionID) {
		if pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	used := measure(group, sampler, ps)
	return w.end(ev, ps, end, &streams{used: &used})
}

// watch writes heartbeats until the agent exits, and ends it on SIGTERM or
// SIGHUP (two-phase, with the session's grace).
func (w *paneWrapper) watch(p *proc.Process, ev *events.Writer) *ending {
	hbPath := filepath.Join(w.dir, interactive.HeartbeatFile)
	hb := interactive.Heartbeat{AgentPID: p.Pid}
	beat := func() {
		ticks, n := proc.TreeCPUOf(p.Pid)
		now := time.Now().UTC()
		if hb.CPUActiveAt.IsZero() || ticks-hb.CPUTicks > cpuNoise {
			hb.CPUActiveAt = now
		}
		hb.At, hb.CPUTicks, hb.Procs = now, ticks, n
		interactive.WriteJSON(hbPath, &hb)
	}
	beat()
	t := time.NewTicker(interactive.HeartbeatInterval)
	defer t.Stop()
	var end *ending
	for {
		select {
		case <-p.Done():
			return end
		case <-t.C:
			beat()
		case sig := <-w.sigs:
			switch sig {
			case syscall.SIGINT:
				continue
			case syscall.SIGCONT: // resumed after a stop: show it at once
				beat()
				continue
			}
			interactive.Append(w.dir, interactive.EvSignal, map[string]any{"signal": sigName(sig)})
			if end != nil {
				p.Signal(syscall.SIGKILL)
				continue
			}
			end = &ending{session.Killed, session.FailInterrupted, "pane wrapper got " + sigName(sig)}
			if req := w.sup.killRequested(w.r.Spec.SessionID); req != "" {
				end = &ending{session.Killed, session.FailKilled, req}
			}
			ev.Emit(events.SignalSent, map[string]any{"signal": "SIGTERM", "reason": end.message})
			go p.Terminate(w.r.Spec.Grace)
		}
	}
}

// end records the done file and the session's end, and returns the exit
// status for the pane.
func (w *paneWrapper) end(ev *events.Writer, ps *os.ProcessState, end *ending, res *streams) int {
	done := interactive.Done{RunID: w.r.State.Interactive.RunID, ExitCode: -1, At: time.Now().UTC()}
	code := 1
	if ps != nil {
		code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			done.Signal = sigName(ws.Signal())
			code = 128 + int(ws.Signal())
		}
		done.ExitCode = code
	}
	if err := writeDone(filepath.Join(w.dir, interactive.DoneFile), &done); err != nil {
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", err)
	}
	interactive.Append(w.dir, interactive.EvAgentExited, &done)
	out := agents.Outcome{}
	if t, err := interactive.ReadTurns(w.dir); err == nil {
		out.Result, out.ProviderSessionID = t.LastMessage, t.ProviderSession
	}
	if _, err := w.sup.finish(w.r, ev, ps, end, out, res); err != nil {
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", err)
	}
	return code
}

func writeDone(path string, d *interactive.Done) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, b)
}
