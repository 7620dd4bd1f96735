// Package send implements `csa send`: type text or keys into an
// interactive session.
package send

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the flags of `csa send`.
type Options struct {
	F        *cmdutil.Factory
	ID       string
	Text     string
	TextFile string
	Keys     []string
	Enter    bool
	textSet  bool
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "send ID (--text TEXT | --text-file FILE) [--enter] | --keys KEY...",
		Short: "Type text or keys into an interactive session",
		Long: `Type into an interactive session's pane. --text (or --text-file, "-" for
standard input) is pasted as one input, multi-line text included; --enter then
submits it. --keys sends tmux key names (Enter, C-c, Escape, Up, ...).`,
		Args: cmdutil.ExactArgs(1, "the id of an interactive session (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			o.textSet = cmd.Flags().Changed("text")
			return Run(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Text, "text", "", "text to type")
	cmd.Flags().StringVar(&o.TextFile, "text-file", "", "read the text from a file (- for standard input)")
	cmd.Flags().StringSliceVar(&o.Keys, "keys", nil, "tmux key names to send, comma-separated or repeated")
	cmd.Flags().BoolVar(&o.Enter, "enter", false, "press Enter after the text, submitting it")
	return cmd
}

// Sent is the JSON answer.
type Sent struct {
	SessionID string    `json:"session_id"`
	Bytes     int       `json:"bytes"`
	Keys      []string  `json:"keys,omitempty"`
	Submitted bool      `json:"submitted"`
	At        time.Time `json:"at"`
}

// Run types into the pane.
func Run(ctx context.Context, o *Options) error {
	text, err := o.text()
	if err != nil {
		return err
	}
	store, st, err := o.F.CwdSession(ctx, o.ID)
	if err != nil {
		return err
	}
	id := st.ID
	if st.Interactive == nil {
		return cmdutil.Usagef("session %s is not interactive: csa send types into sessions started with csa run -i", id)
	}
	if st.Status.Ended() {
		return cmdutil.Refused("ended", fmt.Errorf("session %s has ended (%s): nothing to type into", id, st.Status))
	}
	srv, err := cmdutil.TmuxFor(st)
	if err != nil {
		return err
	}
	sp, err := runner.LoadSpec(store, id)
	if err != nil {
		return err
	}
	dir := store.Dir(id)
	name := st.Interactive.TmuxSession
	if err := waitReady(ctx, dir, st, sp); err != nil {
		return err
	}
	before := paneLogSize(dir)
	submitted := o.Enter || submits(o.Keys)
	var unconfirmed int // the submissions not confirmed once this one is counted
	if submitted {
		// Recorded before the paste, so the agent's own submit hook (and
		// its answer) always come after it, even from a program whose
		// line reading submits pasted newlines at once.
		interactive.UpdateTurns(dir, func(t *interactive.Turns) {
			t.Submits++
			t.LastSubmitAt = o.F.Now().UTC()
			t.LastSentAt = t.LastSubmitAt
			t.LogSizeAtSubmit, t.EchoBytes = before, interactive.EchoOf(text, true)
			if st.Interactive.Hooks {
				t.Unconfirmed++
			}
			unconfirmed = t.Unconfirmed
		})
	}
	if text != "" {
		// Always a (bracketed) paste: one input however long, and Codex
		// takes typed text followed by a quick Enter as a paste.
		if err := srv.Paste(ctx, name, []byte(text)); err != nil {
			return o.tmuxErr(id, err)
		}
	}
	if o.Enter {
		if text != "" {
			// An interface that has not taken the paste in yet (a busy
			// machine) takes an Enter with it as part of the paste, or drops
			// it: the Enter waits for the paste's echo, then the agent's own
			// settling delay.
			if err := waitEcho(ctx, dir, before); err != nil {
				return err
			}
		}
		if text != "" && sp.SubmitDelay > 0 {
			if err := interrupt.Pause(ctx, sp.SubmitDelay); err != nil {
				return err
			}
		}
		if err := srv.SendKeys(ctx, name, "Enter"); err != nil {
			return o.tmuxErr(id, err)
		}
		if text != "" && st.Interactive.Hooks {
			if err := confirm(ctx, dir, unconfirmed, func() error { return srv.SendKeys(ctx, name, "Enter") }); err != nil {
				return o.tmuxErr(id, err)
			}
		}
	}
	if len(o.Keys) > 0 {
		if err := srv.SendKeys(ctx, name, o.Keys...); err != nil {
			return o.tmuxErr(id, err)
		}
	}
	out := Sent{SessionID: id, Bytes: len(text), Keys: o.Keys, Submitted: submitted, At: o.F.Now().UTC()}
	interactive.Append(dir, interactive.EvInputSent, out)
	if o.F.JSON {
		return o.F.IO.PrintJSON(out)
	}
	return nil
}

func (o *Options) text() (string, error) {
	n := 0
	for _, set := range []bool{o.textSet, o.TextFile != "", len(o.Keys) > 0} {
		if set {
			n++
		}
	}
	if n == 0 {
		return "", cmdutil.Usagef("nothing to send: give --text, --text-file or --keys")
	}
	if o.textSet && o.TextFile != "" {
		return "", cmdutil.Usagef("give either --text or --text-file, not both")
	}
	if len(o.Keys) > 0 && o.Enter && !o.textSet && o.TextFile == "" {
		return "", cmdutil.Usagef("--enter goes with --text; with --keys name the key (--keys Enter)")
	}
	switch {
	case o.TextFile == "-":
		b, err := readAll(o.F.IO.In)
		if err != nil {
			return "", cmdutil.Usagef("cannot read text from standard input: %v", err)
		}
		return string(b), nil
	case o.TextFile != "":
		b, err := os.ReadFile(o.TextFile)
		if err != nil {
			return "", cmdutil.Usagef("cannot read --text-file: %v", err)
		}
		return string(b), nil
	}
	if o.textSet && o.Text == "" && !o.Enter {
		return "", cmdutil.Usagef("--text is empty")
	}
	return o.Text, nil
}

// tmuxErr explains a failed send: usually the pane is gone.
func (o *Options) tmuxErr(id string, err error) error {
	return cmdutil.Refused("pane_gone", fmt.Errorf("cannot type into session %s: %v", id, err))
}

// waitReady holds typing back while the agent's interface may still drop
// keys: until its start hook reports it up, or its ready delay passes.
func waitReady(ctx context.Context, dir string, st *session.State, sp *runner.Spec) error {
	start := st.StartedAt
	if start.IsZero() {
		start = st.CreatedAt
	}
	for time.Since(start) < sp.ReadyDelay {
		if sp.ReadyHook {
			if t, err := interactive.ReadTurns(dir); err == nil && !t.ReadyAt.IsZero() {
				return nil
			}
		}
		if err := interrupt.Pause(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func submits(keys []string) bool {
	for _, k := range keys {
		if k == "Enter" || k == "C-m" || k == "KPEnter" {
			return true
		}
	}
	return false
}

// echoBound bounds the wait for a paste's echo: an interface that echoes
// nothing gets its Enter after it.
const echoBound = 5 * time.Second

// waitEcho waits until the pane's log has grown past before (the agent
// drew the pasted text), or echoBound.
func waitEcho(ctx context.Context, dir string, before int64) error {
	for deadline := time.Now().Add(echoBound); paneLogSize(dir) <= before && time.Now().Before(deadline); {
		if err := interrupt.Pause(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// An Enter can still be lost on a busy machine: the pasted text stays in
// the agent's input box, unsubmitted (seen with Claude Code at load 15,
// the Enter arriving while it redrew the end of a turn). An agent with
// hooks confirms each submission (its UserPromptSubmit hook); until it
// does, Enter is pressed again, confirmEvery apart, confirmTries times.
// An Enter on an empty input box does nothing in these interfaces, and a
// message queued behind a running turn is taken, so the extra Enter is
// harmless when the first one was only slow to be confirmed.
const (
	confirmEvery = 3 * time.Second
	confirmTries = 3
)

// confirm waits until fewer than unconfirmed submissions are
// unconfirmed, pressing Enter again (enter) while they are not.
func confirm(ctx context.Context, dir string, unconfirmed int, enter func() error) error {
	for try := 0; try < confirmTries; try++ {
		for deadline := time.Now().Add(confirmEvery); time.Now().Before(deadline); {
			if t, err := interactive.ReadTurns(dir); err == nil && t.Unconfirmed < unconfirmed {
				return nil
			}
			if err := interrupt.Pause(ctx, 50*time.Millisecond); err != nil {
				return err
			}
		}
		if err := enter(); err != nil {
			return err
		}
	}
	return nil
}

func paneLogSize(dir string) int64 {
	fi, err := os.Stat(dir + "/" + interactive.PaneLog)
	if err != nil {
		return 0
	}
	return fi.Size()
}
