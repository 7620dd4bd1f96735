// Package interactive is what csa knows about an agent running in a tmux
// pane: the files its pane wrapper, its hooks and `csa send` leave in the
// session directory, a bounded activity journal, the agents' transcripts,
// and the classifier that turns all of it into one state.
package interactive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
)

// File names inside an interactive session's directory.
const (
	HeartbeatFile = "heartbeat.json" // rewritten by the pane wrapper every HeartbeatInterval
	DoneFile      = "done.json"      // written once by the pane wrapper when the agent exits
	TurnsFile     = "turns.json"     // inputs and finished turns, from `csa send` and the agent's hooks
	PaneLog       = "pane.log"       // every byte the pane showed (tmux pipe-pane)
	ActivityFile  = "activity.jsonl" // bounded journal of what happened
	EnvFile       = "pane.env"       // the agent's environment, read and removed by the wrapper
	turnsLock     = "turns.lock"
)

// HeartbeatInterval is how often the pane wrapper proves it is alive and
// samples the CPU of the agent's process tree.
const HeartbeatInterval = time.Second

// LockTimeout bounds every wait for a lock here: a wedged peer must never
// hang an agent's hook or a status call. The sections it guards take
// microseconds, but on a machine at load 20-60 a waiter can be passed over
// for seconds (20 writers at load 17 waited over 2 s).
const LockTimeout = 10 * time.Second

// Heartbeat is the pane wrapper's latest report.
type Heartbeat struct {
	At       time.Time `json:"at"`
	AgentPID int       `json:"agent_pid"`
	// CPUTicks is the CPU time of the agent's whole process tree;
	// CPUActiveAt is the last sample in which it grew by more than idle
	// noise.
	CPUTicks    int64     `json:"cpu_ticks"`
	CPUActiveAt time.Time `json:"cpu_active_at"`
	Procs       int       `json:"procs"`
}

// Done is the pane wrapper's record of the agent's exit.
type Done struct {
	RunID    string    `json:"run_id"`
	ExitCode int       `json:"exit_code"`
	Signal   string    `json:"signal,omitempty"`
	At       time.Time `json:"at"`
}

// Turns counts what went into the agent and the turns it finished.
type Turns struct {
	// Inputs submitted: the start prompt, `csa send --enter`, and the
	// agent's own prompt-submit hook.
	Submits      int       `json:"submits"`
	LastSubmitAt time.Time `json:"last_submit_at,omitempty"`
	// LogSizeAtSubmit is the pane log's size just before the last input,
	// and EchoBytes about how much of what follows is its echo, so output
	// after it can be told from the echo of the input itself.
	LogSizeAtSubmit int64 `json:"log_size_at_submit"`
	EchoBytes       int64 `json:"echo_bytes"`
	// Turns finished, from the agent's turn-complete hook.
	Turns           int       `json:"turns"`
	LastTurnAt      time.Time `json:"last_turn_at,omitempty"`
	LastMessage     string    `json:"last_message,omitempty"`
	Transcript      string    `json:"transcript_path,omitempty"`
	ProviderSession string    `json:"provider_session_id,omitempty"`
	// Unconfirmed counts inputs csa submitted that the agent's own submit
	// hook has not reported yet (so they are not counted twice); LastSentAt
	// is when csa last submitted one.
	Unconfirmed int       `json:"unconfirmed,omitempty"`
	LastSentAt  time.Time `json:"last_sent_at,omitempty"`
	// ReadyAt is when the agent reported its interface up (Claude Code's
	// SessionStart hook); input typed before may lose its Enter.
	ReadyAt time.Time `json:"ready_at,omitempty"`
}

// HooksHeard reports that an agent given hooks ran one of them: a start or
// a finished turn, or a submit (which either confirms an input csa counted,
// so Unconfirmed drops below Submits, or counts one of its own). Derived,
// so turns.json written before it existed reads the same.
func (t Turns) HooksHeard() bool {
	return !t.ReadyAt.IsZero() || !t.LastTurnAt.IsZero() || t.Unconfirmed < t.Submits
}

// maxMessage bounds the last message kept in turns.json.
const maxMessage = 4096

// WriteJSON writes v to path atomically (0600).
func WriteJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return fsutil.WriteFileReplace(path, b)
}

// ReadJSON reads path into v; a missing file is os.ErrNotExist.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// UpdateTurns changes turns.json under its lock (bounded wait).
func UpdateTurns(dir string, fn func(*Turns)) (Turns, error) {
	l := lock.New(filepath.Join(dir, turnsLock))
	if err := l.LockTimeout(context.Background(), LockTimeout); err != nil {
		return Turns{}, err
	}
	defer l.Unlock()
	var t Turns
	if err := ReadJSON(filepath.Join(dir, TurnsFile), &t); err != nil && !errors.Is(err, os.ErrNotExist) {
		// A damaged file is replaced: the counts restart, the journal
		// keeps the history.
		t = Turns{}
	}
	fn(&t)
	if len(t.LastMessage) > maxMessage {
		t.LastMessage = t.LastMessage[:maxMessage]
	}
	return t, WriteJSON(filepath.Join(dir, TurnsFile), &t)
}

// ReadTurns reads turns.json (zero when missing).
func ReadTurns(dir string) (Turns, error) {
	var t Turns
	err := ReadJSON(filepath.Join(dir, TurnsFile), &t)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return t, err
}

// EchoOf is about how many bytes a terminal shows for typed text: the text
// itself, CR LF for each newline and for the final Enter.
func EchoOf(text string, enter bool) int64 {
	n := int64(len(text))
	for _, c := range text {
		if c == '\n' {
			n++
		}
	}
	if enter {
		n += 2
	}
	return n
}
