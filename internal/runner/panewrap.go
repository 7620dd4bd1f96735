package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	ossignal "os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/transport"
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
// (run id and exit status) and the session's end. ctx ends on SIGTERM,
// SIGHUP or SIGQUIT (csa kill, a closed pane), which end the agent; SIGINT
// typed in the pane is the agent's own. It returns the agent's exit status.
func RunPane(ctx context.Context, store *session.Store, id string, sup *Supervisor) int {
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
	// SIGCONT: resumed after a stop, the heartbeat shows it at once.
	cont := make(chan os.Signal, 1)
	ossignal.Notify(cont, syscall.SIGCONT)
	defer func() { ossignal.Stop(cont); close(cont) }()
	sup.Store = store
	w := &paneWrapper{sup: sup, r: run, dir: dir, cont: cont}
	return w.serve(ctx)
}

type paneWrapper struct {
	sup  *Supervisor
	r    *Run
	dir  string
	cont chan os.Signal
}

func (w *paneWrapper) serve(ctx context.Context) int {
	defer w.r.Release()
	sp, st := w.r.Spec, w.r.State
	envPath := filepath.Join(w.dir, interactive.EnvFile)
	base, err := os.ReadFile(envPath)
	os.Remove(envPath) // it may hold secrets: read once
	l, evErr := w.sup.begin(w.r, map[string]any{"tool": sp.Tool, "depth": st.Depth, "parent_id": st.ParentID, "interactive": true})
	if evErr != nil {
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", evErr)
		return 1
	}
	defer l.close()
	if err != nil {
		return w.end(l, nil, &ending{session.Failed, session.FailStart, "cannot read the agent's environment: " + err.Error()})
	}
	if end := l.killedEarly(); end != nil {
		return w.end(l, nil, end)
	}
	// The hooks start from the environment the agent gets.
	w.sup.BaseEnv = decodeEnv(base)
	if end := l.preRun(ctx); end != nil {
		return w.end(l, nil, end)
	}
	err = l.start(ctx, proc.Spec{
		Dir: sp.Cwd, InTerminal: true, Env: ChildEnv(w.sup.BaseEnv, st, w.dir, sp.Env),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
	}, sp.Program, sp.Args)
	if err == nil {
		if err = l.running(func(cur *session.State) { cur.Interactive.PanePID = os.Getpid() }); err == nil {
			l.announce(sp.Program, map[string]any{"transport": transport.Tmux})
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa:", err)
		var se *startError
		if errors.As(err, &se) {
			return w.end(l, nil, &ending{session.Failed, session.FailStart, se.msg})
		}
		return 1
	}
	interactive.Append(w.dir, interactive.EvAgentStarted, map[string]any{"pid": l.p.Pid, "wrapper_pid": os.Getpid()})

	hb := &heartbeat{path: filepath.Join(w.dir, interactive.HeartbeatFile), pid: l.p.Pid}
	hb.beat()
	ni := newNeedsInput(l, w.dir)
	go func() {
		for range w.cont {
			hb.beat()
		}
	}()
	end, _ := l.watch(ctx, watchOpts{
		stop: func(e *ending) {
			interactive.Append(w.dir, interactive.EvSignal, map[string]any{"reason": e.message})
			l.stopGroup(e)
		},
		kill:      func() { l.p.Signal(syscall.SIGKILL) },
		tick:      func() { ni.check(hb.beat()) },
		tickEvery: interactive.HeartbeatInterval,
	})
	ps := l.p.Wait()
	ni.wait()
	// Whatever the agent left in its tree goes with it.
	for _, pid := range proc.TaggedMembers(syscall.Getpgrp(), csaenv.SessionID+"="+sp.SessionID) {
		if pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if end == nil {
		end = l.killedEarly()
	}
	return w.end(l, ps, end)
}

// heartbeat is the pane wrapper's proof of life, with the CPU of the
// agent's process tree.
type heartbeat struct {
	path string
	pid  int
	mu   sync.Mutex
	hb   interactive.Heartbeat
}

func (h *heartbeat) beat() interactive.Heartbeat {
	h.mu.Lock()
	defer h.mu.Unlock()
	ticks, n := proc.TreeCPUOf(h.pid)
	now := time.Now().UTC()
	if h.hb.CPUActiveAt.IsZero() || ticks-h.hb.CPUTicks > cpuNoise {
		h.hb.CPUActiveAt = now
	}
	h.hb.At, h.hb.AgentPID, h.hb.CPUTicks, h.hb.Procs = now, h.pid, ticks, n
	interactive.WriteJSON(h.path, &h.hb)
	return h.hb
}

// end records the done file and the session's end, and returns the exit
// status for the pane.
func (w *paneWrapper) end(l *life, ps *os.ProcessState, end *ending) int {
	done := interactive.Done{RunID: w.r.State.Interactive.RunID, ExitCode: -1, At: time.Now().UTC()}
	code := 1
	if ps != nil {
		code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			done.Signal = interrupt.Name(ws.Signal())
			code = 128 + int(ws.Signal())
		}
		done.ExitCode = code
	}
	out := agents.Outcome{}
	if t, err := interactive.ReadTurns(w.dir); err == nil {
		out.Result, out.ProviderSessionID = t.LastMessage, t.ProviderSession
	}
	// The session's end (its reason: an OOM kill, csa kill) is recorded
	// before the exit record, which whoever watches the pane reads first.
	if _, err := l.finish(ps, end, out, nil); err != nil {
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", err)
	}
	if err := writeDone(filepath.Join(w.dir, interactive.DoneFile), &done); err != nil {
		fmt.Fprintln(os.Stderr, "csa: pane wrapper:", err)
	}
	interactive.Append(w.dir, interactive.EvAgentExited, &done)
	return code
}

func writeDone(path string, d *interactive.Done) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, b)
}
