package runner

import (
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/session"
)

// A run whose records (output.log, stderr.log, events.jsonl, state.toml)
// can no longer be written for lack of space is stopped: csa could not
// tell what it did. It ends failed, class no_space, the reason naming the
// file and the error; the space set aside beforehand (the events writer's
// room, the store's reserve) lets that end be recorded while the disk
// stays full.

// noSpace stops the run at the first write that failed for lack of space
// (other failures are not the disk's being full, and are let be).
func (l *life) noSpace(err error) {
	if !fsutil.NoSpace(err) {
		return
	}
	select {
	case l.full <- &ending{session.Failed, session.FailNoSpace, "csa stopped the run, which it could no longer record: " + err.Error()}:
	default:
	}
}

// fullAlready is the ending of a run whose records could not be written
// before its program started (nil if they could): it is not started.
func (l *life) fullAlready() *ending {
	select {
	case end := <-l.full:
		return end
	default:
		return nil
	}
}

// unrecorded leaves word of an end that could not be recorded for lack of
// space (err), for whoever next looks at the session: it is failed, for
// that reason, and its supervisor did not die.
func (l *life) unrecorded(end *ending, err error) {
	if !fsutil.NoSpace(err) {
		return
	}
	reason := "no space left to record the run's end: " + err.Error()
	if end != nil && end.class == session.FailNoSpace {
		reason = end.message
	}
	l.s.Store.MarkNoSpace(l.run.Spec.SessionID, reason)
}
