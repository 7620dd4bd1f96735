// Package hooks runs Claude Code's command hooks for csa-agent: the same
// settings, the same JSON on stdin, the same answers (exit codes and JSON on
// stdout), so a hook written for Claude Code works unchanged. The engine
// implements loop.Hooks (tool calls and the end of a run) and fires the
// session's other events for the command line and the subagents.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/proc"
)

// Options are the session's facts every hook input carries.
type Options struct {
	SessionID      string
	TranscriptPath string
	// SubagentTranscript is a subagent's transcript by its id
	// (SubagentStop's agent_transcript_path); nil: none.
	SubagentTranscript func(agentID string) string
	Cwd                string
	// ProjectDir is $CLAUDE_PROJECT_DIR in the hooks' environment.
	ProjectDir string
	// Mode is the permission mode now (it changes in plan mode).
	Mode func() string
	// Environ is the hooks' environment, CLAUDE_PROJECT_DIR added.
	Environ []string
	// Stderr shows the user what hooks report (errors, systemMessage).
	Stderr io.Writer
	// Wakeable: the session goes on after a turn (the REPL), so an
	// asyncRewake hook runs in the background and may wake the model;
	// false in -p, where Claude Code runs those hooks like any other.
	Wakeable bool
}

// Engine runs a session's hooks. A nil or empty engine runs nothing.
type Engine struct {
	o       Options
	byEvent map[string][]group
	bg      background // the async hooks

	mu       sync.Mutex
	promptID string               // the latest prompt's (prompt_id)
	started  map[string]time.Time // calls' starts by tool_use id (duration_ms)
}

type group struct {
	match matcher
	hooks []Command
}

// New makes the engine for settings (checked: see Settings.Check).
func New(s Settings, o Options) (*Engine, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Mode == nil {
		o.Mode = func() string { return "default" }
	}
	o.Environ = append(append([]string(nil), o.Environ...), "CLAUDE_PROJECT_DIR="+o.ProjectDir)
	e := &Engine{o: o, byEvent: map[string][]group{}, started: map[string]time.Time{}}
	e.bg.ctx, e.bg.stop = context.WithCancel(context.Background())
	e.bg.woke = make(chan struct{}, 1)
	for ev, groups := range s {
		for _, g := range groups {
			m, _ := compileMatcher(g.Matcher) // checked above
			e.byEvent[ev] = append(e.byEvent[ev], group{m, g.Hooks})
		}
	}
	return e, nil
}

// detached are the events that go out even when the turn was interrupted:
// they tell a program driving csa-agent where the session is.
var detached = map[string]bool{SessionStart: true, UserPromptSubmit: true, Stop: true, SessionEnd: true}

// fire runs the hooks of event whose matcher matches subject, all at once,
// and composes their answers in configuration order. Only the tool
// events' hooks may have an "if" condition: fireCall runs those.
func (e *Engine) fire(ctx context.Context, event, subject string, who loop.Who, fields map[string]any) answer {
	return e.fireIf(ctx, event, subject, who, fields, nil)
}

// fireIf is fire with the call the hooks' conditions are about (nil: the
// hooks with a condition do not run).
func (e *Engine) fireIf(ctx context.Context, event, subject string, who loop.Who, fields map[string]any, call *loop.Call) answer {
	cmds := e.matching(event, subject, e.condition(call))
	if len(cmds) == 0 {
		return answer{}
	}
	in := map[string]any{"session_id": e.o.SessionID, "transcript_path": e.o.TranscriptPath, "cwd": e.o.Cwd,
		"hook_event_name": event}
	if !modeless[event] {
		in["permission_mode"] = e.o.Mode()
	}
	if id := e.prompt(); id != "" {
		in["prompt_id"] = id
	}
	if who.ID != "" {
		in["agent_id"], in["agent_type"] = who.ID, who.Type
	}
	for k, v := range fields {
		in[k] = v
	}
	body, err := json.Marshal(in)
	if err != nil {
		fmt.Fprintf(e.o.Stderr, "csa-agent: %s hooks: %v\n", event, err)
		return answer{}
	}
	if detached[event] {
		ctx = context.WithoutCancel(ctx)
	}
	var waited []Command
	for _, c := range cmds {
		switch {
		case c.AsyncRewake && c.backgrounded(e.o.Wakeable):
			e.startRewake(event, subject, c, body)
		case c.Async:
			e.startAsync(event, c, body)
		default:
			waited = append(waited, c)
		}
	}
	runs := make([]run, len(waited))
	var wg sync.WaitGroup
	for i, c := range waited {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d *detachedRun
			runs[i], d = e.launch(ctx, c, body, true)
			if d != nil {
				e.continueAsync(event, d)
			}
		}()
	}
	wg.Wait()
	return e.compose(event, runs)
}

// modeless are the events whose input has no permission_mode in Claude
// Code (2.1.197 builds them without one).
var modeless = map[string]bool{SessionStart: true, SessionEnd: true, SubagentStart: true, PreCompact: true, Notification: true}

// unmatched are the events whose matchers Claude Code ignores.
var unmatched = map[string]bool{UserPromptSubmit: true, Stop: true}

// matching lists the commands of the groups matching subject whose
// condition, if any, holds (cond nil: none holds), each command once
// (Claude Code runs identical commands once).
func (e *Engine) matching(event, subject string, cond func(string) bool) []Command {
	if e == nil {
		return nil
	}
	var out []Command
	type identity struct {
		command, cond, env string
		async, rewake      bool
	}
	seen := map[identity]bool{}
	for _, g := range e.byEvent[event] {
		if !unmatched[event] && !g.match(subject) {
			continue
		}
		for _, c := range g.hooks {
			if c.If != "" && (cond == nil || !cond(c.If)) {
				continue
			}
			key := identity{c.Command, c.If, strings.Join(c.Env, "\x00"), c.Async, c.AsyncRewake}
			if !seen[key] {
				seen[key] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// run is how one hook command ended.
type run struct {
	cmd      Command
	code     int
	stdout   []byte
	stderr   string
	err      error // it could not start, timed out or was cut short
	timeout  time.Duration
	timedOut bool
}

// killGrace is how long a hook has between SIGTERM and SIGKILL.
const killGrace = time.Second

// runOne runs a command with /bin/sh in the session's directory, in its own
// process group, killed as a whole at its timeout.
func (e *Engine) runOne(ctx context.Context, c Command, body []byte) run {
	r, _ := e.launch(ctx, c, body, false)
	return r
}

// launch runs c as runOne does. With mayDetach, a hook whose first line of
// output is {"async": true, "asyncTimeout": MS} (Claude Code's answer of
// a hook that goes on in the background) is not waited for: launch
// returns at once an empty answer and the run still going.
func (e *Engine) launch(ctx context.Context, c Command, body []byte, mayDetach bool) (run, *detachedRun) {
	r := run{cmd: c, timeout: DefaultTimeout}
	if c.Timeout > 0 {
		r.timeout = time.Duration(c.Timeout * float64(time.Second))
	}
	out := &watchedOutput{first: make(chan []byte, 1)}
	errTail := &stderrTail{}
	p, err := proc.Start(proc.Spec{Path: "/bin/sh", Args: []string{"-c", c.Command}, Env: append(e.o.Environ[:len(e.o.Environ):len(e.o.Environ)], c.Env...),
		Dir: e.o.Cwd, Stdin: bytes.NewReader(body), Stdout: out, Stderr: errTail, DieWithParent: true})
	if err != nil {
		r.err = err
		return r, nil
	}
	timer := time.NewTimer(r.timeout)
	defer timer.Stop()
	first := out.first
	if !mayDetach {
		first = nil
	}
	for {
		select {
		case line := <-first:
			if timeout, ok := asyncLine(line); ok {
				return run{cmd: c}, &detachedRun{p: p, out: out, errTail: errTail, timeout: timeout, cmd: c}
			}
			first = nil
			continue
		case <-p.Done():
		case <-timer.C:
			r.err, r.timedOut = context.DeadlineExceeded, true
			p.Terminate(killGrace)
		case <-ctx.Done():
			r.err = context.Cause(ctx)
			p.Terminate(killGrace)
		}
		break
	}
	r.code = -1
	if ps := p.Wait(); ps != nil {
		r.code = ps.ExitCode()
	}
	r.stdout, r.stderr = out.Bytes(), errTail.String()
	return r, nil
}

func (r run) String() string {
	cmd := r.cmd.Command
	if len(cmd) > 80 {
		cmd = cmd[:77] + "..."
	}
	return fmt.Sprintf("%q", cmd)
}

func trim(s string) string { return strings.TrimSpace(s) }
