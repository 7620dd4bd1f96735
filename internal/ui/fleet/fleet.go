// Package fleet is the live view of a project's sessions that csa top and
// the web view (csa serve --ui) show: each session's state in one of a few
// classes a person acts on (needs input, working, idle, stuck, failed,
// done), read from the store and, for interactive sessions, from the
// classifier of csa status; with its tool, model, genealogy, memory,
// tokens, retries, failover and the last line its agent said. It prints
// nothing; the terminal and web views render its snapshots.
package fleet

import (
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/radar"

	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/session"
)

// Refresh is how often the views read the store again: a change shows
// within it and the time a read takes (under a second), and csa top stays
// under 2% of a core with 50 live sessions (bench: TopCPU, TopLatency).
const Refresh = 900 * time.Millisecond

// Class is what a session asks of the person watching.
type Class string

// The classes, most urgent first.
const (
	NeedsInput Class = "needs_input" // an interactive agent answered and waits for its next input
	Stuck      Class = "stuck"       // no output, CPU or turn event for interactive.stuck_after
	Failed     Class = "failed"      // ended failed, crashed or timed out
	Working    Class = "working"     // starting or working on its input
	Idle       Class = "idle"        // an interactive agent up with no input given yet
	Unknown    Class = "unknown"     // csa cannot observe it (interactive degraded)
	Done       Class = "done"        // ended completed, or stopped by csa kill
)

// Classes lists every class once, most urgent first.
var Classes = []Class{NeedsInput, Stuck, Failed, Working, Idle, Unknown, Done}

// Symbol is the class's mark, distinct without colour.
func (c Class) Symbol() string {
	switch c {
	case NeedsInput:
		return "!"
	case Stuck:
		return "#"
	case Failed:
		return "x"
	case Working:
		return ">"
	case Idle:
		return "-"
	case Done:
		return "="
	}
	return "?"
}

// Label is the class in words.
func (c Class) Label() string {
	switch c {
	case NeedsInput:
		return "needs input"
	case Stuck:
		return "stuck"
	case Failed:
		return "failed"
	case Working:
		return "working"
	case Idle:
		return "idle"
	case Done:
		return "done"
	}
	return "unknown"
}

// Row is one session of a snapshot. JSON names are the web view's.
type Row struct {
	ID          string `json:"id"`
	Project     string `json:"project"` // the project root
	Cwd         string `json:"cwd"`
	Tool        string `json:"tool"`
	Model       string `json:"model,omitempty"`
	ParentID    string `json:"parent_id,omitempty"`
	Depth       int    `json:"depth"`
	Interactive bool   `json:"interactive"`
	Class       Class  `json:"class"`
	Symbol      string `json:"symbol"`
	Label       string `json:"label"`
	// State is the recorded state, or an interactive session's classified
	// one; Reason says why.
	State     string    `json:"state"`
	Reason    string    `json:"reason,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
	// MemoryMB is the resident memory of the agent's process tree now (0
	// when it has ended); PeakMemoryMB the most csa recorded or saw.
	MemoryMB     int64  `json:"memory_mb"`
	PeakMemoryMB int64  `json:"peak_memory_mb"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	Retries      int    `json:"retries"`
	Tier         string `json:"tier,omitempty"`
	Failovers    int    `json:"failovers"`
	LastLine     string `json:"last_line,omitempty"`
	// Branch is a worktree run's branch; Files the paths its change
	// touches (while it runs, as its supervisor last reported them), and
	// once Recorded its lines added and deleted.
	Branch     string `json:"branch,omitempty"`
	Recorded   bool   `json:"recorded,omitempty"`
	Files      int    `json:"files,omitempty"`
	Insertions int    `json:"insertions,omitempty"`
	Deletions  int    `json:"deletions,omitempty"`
	// Overlaps are the other live worktree runs of the repository that
	// change some of the same files.
	Overlaps []radar.Overlap `json:"overlaps,omitempty"`
}

// Change is a worktree run's branch and change in words: "csa/01JF3K4Q2M
// 3 files +10 -2", or while it runs "csa/01JF3K4Q2M 3 files"; "" for
// another run.
func (r *Row) Change() string {
	switch {
	case r.Branch == "":
		return ""
	case r.Recorded:
		return fmt.Sprintf("%s %d files +%d -%d", r.Branch, r.Files, r.Insertions, r.Deletions)
	}
	return fmt.Sprintf("%s %d files", r.Branch, r.Files)
}

// Snapshot is every session read at one moment.
type Snapshot struct {
	At   time.Time `json:"at"`
	Rows []*Row    `json:"sessions"`
}

// classOf is the class of a recorded status (headless sessions).
func classOf(s session.Status) Class {
	switch s {
	case session.Pending, session.Running:
		return Working
	case session.Completed, session.Killed:
		return Done
	}
	return Failed
}

// classOfVerdict is the class of an interactive session's verdict: waiting
// for input after an input is needs input, before any is idle.
func classOfVerdict(v interactive.Verdict) Class {
	switch v.State {
	case interactive.JustStarted, interactive.InProgress:
		return Working
	case interactive.WaitingInput:
		if v.Signals.Submits > 0 || v.Signals.Turns > 0 {
			return NeedsInput
		}
		return Idle
	case interactive.Stuck:
		return Stuck
	case interactive.Completed, interactive.Killed:
		return Done
	case interactive.Crashed:
		return Failed
	}
	return Unknown
}
