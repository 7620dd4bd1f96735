// Package statusline runs Claude Code's statusLine command for csa-agent's
// REPL: the command gets the session's state as Claude Code's JSON on
// stdin and prints the line shown, and it is rerun only when that state
// moved on, as Claude Code reruns it.
package statusline

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/claudesettings"
	"github.com/csa-dev/csa/internal/proc"
)

// Timeout bounds one run of the command, as Claude Code's 5 seconds.
const Timeout = 5 * time.Second

// killGrace is how long the command has between SIGTERM and SIGKILL.
const killGrace = time.Second

// Input is what the command reads on stdin: Claude Code's fields, those
// csa-agent knows.
type Input struct {
	SessionID      string        `json:"session_id"`
	TranscriptPath string        `json:"transcript_path"`
	Cwd            string        `json:"cwd"`
	Model          Model         `json:"model"`
	Workspace      Workspace     `json:"workspace"`
	Version        string        `json:"version"`
	OutputStyle    OutputStyle   `json:"output_style"`
	Cost           Cost          `json:"cost"`
	ContextWindow  ContextWindow `json:"context_window"`
	// Exceeds200kTokens: the last request's input passed 200,000 tokens.
	Exceeds200kTokens bool `json:"exceeds_200k_tokens"`
}

// Model is the session's model.
type Model struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
}

// Workspace is where the session works.
type Workspace struct {
	CurrentDir string   `json:"current_dir"`
	ProjectDir string   `json:"project_dir"`
	AddedDirs  []string `json:"added_dirs"`
}

// OutputStyle names the selected style ("default" for none).
type OutputStyle struct {
	Name string `json:"name"`
}

// Cost is the session's running totals. csa-agent keeps no price table,
// so Claude Code's total_cost_usd is not given.
type Cost struct {
	TotalDurationMS int64 `json:"total_duration_ms"`
}

// ContextWindow is how full the model's context is, by the last
// response's usage as Claude Code counts it.
type ContextWindow struct {
	TotalInputTokens  int64  `json:"total_input_tokens"`
	TotalOutputTokens int64  `json:"total_output_tokens"`
	ContextWindowSize int64  `json:"context_window_size"`
	CurrentUsage      *Usage `json:"current_usage"`
	// UsedPercentage and RemainingPercentage are whole percents of the
	// window; null before the first response.
	UsedPercentage      *int64 `json:"used_percentage"`
	RemainingPercentage *int64 `json:"remaining_percentage"`
}

// NewContextWindow is the window of size filled by last (nil before the
// first response).
func NewContextWindow(last *Usage, size int64) ContextWindow {
	cw := ContextWindow{ContextWindowSize: size, CurrentUsage: last}
	if last == nil {
		return cw
	}
	in := last.InputTokens + last.CacheCreationInputTokens + last.CacheReadInputTokens
	cw.TotalInputTokens, cw.TotalOutputTokens = in, last.OutputTokens
	if size > 0 {
		used := min(100, max(0, int64(math.Round(float64(in)/float64(size)*100))))
		remaining := 100 - used
		cw.UsedPercentage, cw.RemainingPercentage = &used, &remaining
	}
	return cw
}

// Usage is the last response's tokens, in the Messages API's names.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// Command runs a statusLine setting.
type Command struct {
	Setting claudesettings.StatusLine
	Dir     string   // the working directory
	Environ []string // the command's environment
}

// Run runs the command once with in on stdin and returns what it printed,
// as Claude Code shows it: on exit status 0, standard output trimmed, its
// blank lines dropped; "" otherwise (a failing, silent or timed-out
// command shows nothing).
func (c Command) Run(ctx context.Context, in Input) string {
	if c.Setting.Type != "command" || strings.TrimSpace(c.Setting.Command) == "" {
		return ""
	}
	body, err := json.Marshal(in)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	got, err := proc.Capture(ctx, proc.Spec{Path: "/bin/sh", Args: []string{"-c", c.Setting.Command}, Env: c.Environ,
		Dir: c.Dir, Stdin: bytes.NewReader(body), DieWithParent: true}, killGrace)
	if err != nil || got == nil || got.ExitCode != 0 {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(got.Stdout)), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return strings.Join(lines, "\n")
}

// Padded indents each line of text by the setting's padding, as Claude
// Code pads the status line's box.
func Padded(text string, padding int) string {
	if text == "" || padding <= 0 {
		return text
	}
	pad := strings.Repeat(" ", padding)
	return pad + strings.ReplaceAll(text, "\n", "\n"+pad)
}

// Status is the REPL's status line: the command's last output, rerun only
// when the state it describes changed (Claude Code reruns it on a new
// message, new token counts, a new mode or model, debounced; a line-mode
// REPL shows it before its prompt, where those changes have settled).
type Status struct {
	cmd  Command
	key  string
	ran  bool
	text string
}

// NewStatus is the status line of a setting.
func NewStatus(cmd Command) *Status { return &Status{cmd: cmd} }

// Update reruns the command when key (what the state is now) differs
// from the last run's, and returns the text to show and whether it is
// new. input is called only to rerun.
func (s *Status) Update(ctx context.Context, key string, input func() Input) (text string, fresh bool) {
	if s.ran && key == s.key {
		return s.text, false
	}
	s.ran, s.key = true, key
	s.text = s.cmd.Run(ctx, input())
	return s.text, true
}
