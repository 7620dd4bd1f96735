package logs

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/session"
)

// Sources of an interactive session's log, named in cursors.
const (
	srcTranscript = "transcript"
	srcPane       = "pane" // the pane's bytes, escape sequences removed
	srcRaw        = "raw"  // the pane's bytes as recorded
)

// Chunk is the JSON answer for an interactive session.
type Chunk struct {
	SessionID  string `json:"session_id"`
	Source     string `json:"source"`
	Path       string `json:"path"`
	Text       string `json:"text"`
	NextCursor string `json:"next_cursor"`
}

// interactiveLogs prints an interactive session's transcript (or pane
// output) from a cursor; the cursor is a byte offset in a file that only
// grows, so it stays valid however far the pane has scrolled.
func (o *Options) interactiveLogs(ctx context.Context, store *session.Store, st *session.State) error {
	src, off, err := parseCursor(o.From)
	if err != nil {
		return err
	}
	dir := store.Dir(st.ID)
	turns, _ := interactive.ReadTurns(dir)
	transcript := interactive.FindTranscript(turns, st.Tool, st.ProviderSessionID, o.F.Getenv("HOME"))
	switch {
	case src != "" && o.Raw && src != srcRaw:
		return cmdutil.Usagef("--from %s is a cursor of the %s log, not of --raw", o.From, src)
	case src == srcTranscript && transcript == "":
		return cmdutil.Usagef("--from %s: the session's transcript cannot be found", o.From)
	case src != "":
	case o.Raw:
		src = srcRaw
	case transcript != "":
		src = srcTranscript
	default:
		src = srcPane
	}
	path := dir + "/" + interactive.PaneLog
	if src == srcTranscript {
		path = transcript
	}
	for {
		cur, err := o.F.Current(ctx, store, st.ID)
		if err != nil {
			return err
		}
		text, next, err := readChunk(src, path, off)
		if err != nil {
			return err
		}
		cursor := src + ":" + strconv.FormatInt(next, 10)
		if o.F.JSON {
			if err := o.F.IO.PrintJSON(Chunk{SessionID: st.ID, Source: src, Path: path, Text: text, NextCursor: cursor}); err != nil {
				return err
			}
		} else {
			io.WriteString(o.F.IO.Out, text)
		}
		off = next
		if !o.Follow || cur.Status.Ended() {
			if !o.F.JSON && o.F.IO.ErrTTY {
				fmt.Fprintf(o.F.IO.ErrOut, "csa: next cursor %s\n", cursor)
			}
			return nil
		}
		if err := interrupt.Pause(ctx, o.Poll); err != nil {
			return err
		}
	}
}

func readChunk(src, path string, off int64) (string, int64, error) {
	if src == srcTranscript {
		return interactive.Transcript(path, off)
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", off, nil
	}
	if err != nil {
		return "", off, err
	}
	if off > int64(len(data)) {
		return "", off, cmdutil.Usagef("cursor %s:%d is past the end of the log (%d bytes)", src, off, len(data))
	}
	data = data[off:]
	if src == srcRaw {
		return strings.ToValidUTF8(string(data), "\uFFFD"), off + int64(len(data)), nil
	}
	text, n := interactive.PaneText(data)
	return text, off + int64(n), nil
}

// parseCursor reads "SOURCE:OFFSET".
func parseCursor(c string) (string, int64, error) {
	if c == "" {
		return "", 0, nil
	}
	src, num, ok := strings.Cut(c, ":")
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n < 0 || (src != srcTranscript && src != srcPane && src != srcRaw) {
		return "", 0, cmdutil.Usagef("--from %q is not a cursor (SOURCE:OFFSET, as next_cursor gives it)", c)
	}
	return src, n, nil
}
