package pane

import (
	"encoding/json"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/interactive"
)

// hookPayload is what Claude Code's and Codex's hooks give on stdin (and
// Codex's notify program as its last argument).
type hookPayload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	LastMessage    string `json:"last_assistant_message"`
	// Codex notify.
	Type          string `json:"type"`
	ThreadID      string `json:"thread-id"`
	LastMessageNt string `json:"last-assistant-message"`
}

// maxPayload bounds what a hook reads from the agent.
const maxPayload = 4 << 20

// NewHookCmd builds `csa __hook --dir SESSION_DIR EVENT [JSON]`. It never
// fails the agent: errors go to stderr and the exit status stays 0.
func NewHookCmd(f *cmdutil.Factory) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "__hook --dir DIR ready|submit|stop|notify [JSON]",
		Hidden: true,
		Args:   cmdutil.ArgsBetween(1, 2, "an event (ready, submit, stop or notify), then its JSON if any"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !filepath.IsAbs(dir) {
				return cmdutil.Usagef("--dir must be an absolute path")
			}
			var raw []byte
			if len(args) == 2 {
				raw = []byte(args[1])
			} else {
				raw, _ = io.ReadAll(io.LimitReader(f.IO.In, maxPayload))
			}
			if err := record(dir, args[0], raw, f.Now().UTC()); err != nil {
				f.IO.PrintError(err, false)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the session's directory")
	return cmd
}

func record(dir, event string, raw []byte, now time.Time) error {
	var p hookPayload
	json.Unmarshal(raw, &p) // a payload csa cannot read still marks the event
	switch event {
	case "submit":
		_, err := interactive.UpdateTurns(dir, func(t *interactive.Turns) {
			// The submit csa typed itself is confirmed, not counted again.
			if t.Unconfirmed > 0 {
				t.Unconfirmed--
			} else {
				t.Submits++
			}
			t.LastSubmitAt = now
			if p.SessionID != "" {
				t.ProviderSession = p.SessionID
			}
		})
		interactive.Append(dir, interactive.EvSubmitted, map[string]any{"provider_session_id": p.SessionID})
		return err
	case "ready":
		_, err := interactive.UpdateTurns(dir, func(t *interactive.Turns) { t.ReadyAt = now })
		interactive.Append(dir, interactive.EvReady, map[string]any{"provider_session_id": p.SessionID})
		return err
	case "stop", "notify":
		msg := p.LastMessage
		if msg == "" {
			msg = p.LastMessageNt
		}
		// The turn counts as finished once its answer can be read: the
		// agent may write its transcript just after calling this hook.
		inTranscript := interactive.AwaitAnswer(p.TranscriptPath, msg)
		t, err := interactive.UpdateTurns(dir, func(t *interactive.Turns) {
			t.Turns++
			t.LastTurnAt, t.LastMessage = now, msg
			if p.TranscriptPath != "" {
				t.Transcript = p.TranscriptPath
			}
			if p.SessionID != "" {
				t.ProviderSession = p.SessionID
			}
		})
		interactive.Append(dir, interactive.EvTurnDone, map[string]any{"turn": t.Turns, "last_message": truncate(msg, 512),
			"transcript_path": p.TranscriptPath, "in_transcript": inTranscript})
		return err
	}
	return cmdutil.Usagef("unknown hook event %q", event)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
