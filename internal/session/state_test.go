package session_test

import (
	"errors"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

var allStatuses = []session.Status{
	session.Pending, session.Running, session.Completed, session.Failed,
	session.Crashed, session.Killed, session.TimedOut,
}

func TestTransitions(t *testing.T) {
	allowed := map[session.Status][]session.Status{
		session.Pending:   {session.Running, session.Failed, session.Killed, session.Crashed},
		session.Running:   {session.Completed, session.Failed, session.Killed, session.Crashed, session.TimedOut},
		session.Completed: {session.Pending},
		session.Failed:    {session.Pending},
		session.Crashed:   {session.Pending},
		session.Killed:    {session.Pending},
		session.TimedOut:  {session.Pending},
	}
	// Every pair of known statuses, plus unknown ones on either side.
	from := append(append([]session.Status(nil), allStatuses...), "bogus", "")
	to := append(append([]session.Status(nil), allStatuses...), "bogus", "")
	for _, f := range from {
		for _, tt := range to {
			want := false
			for _, a := range allowed[f] {
				if a == tt {
					want = true
				}
			}
			if got := session.CanMove(f, tt); got != want {
				t.Errorf("CanMove(%q, %q) = %v, want %v", f, tt, got, want)
			}
			st := &session.State{Status: f}
			err := st.Move(tt)
			if want {
				if err != nil || st.Status != tt {
					t.Errorf("Move %q -> %q: err %v, status %q", f, tt, err, st.Status)
				}
				continue
			}
			var te *session.TransitionError
			if !errors.As(err, &te) || te.From != f || te.To != tt {
				t.Errorf("Move %q -> %q: err %v, want *TransitionError{%q, %q}", f, tt, err, f, tt)
			}
			if st.Status != f {
				t.Errorf("forbidden Move %q -> %q changed the status to %q", f, tt, st.Status)
			}
		}
	}
}

func TestForbiddenTransitionsSample(t *testing.T) {
	tests := []struct{ from, to session.Status }{
		{session.Pending, session.Completed},
		{session.Pending, session.TimedOut},
		{session.Pending, session.Pending},
		{session.Running, session.Pending},
		{session.Running, session.Running},
		{session.Completed, session.Failed},
		{session.Completed, session.Running},
		{session.Failed, session.Running},
		{session.Killed, session.Completed},
		{session.TimedOut, session.Crashed},
		{session.Crashed, session.Killed},
	}
	for _, tt := range tests {
		if session.CanMove(tt.from, tt.to) {
			t.Errorf("CanMove(%q, %q) = true, want false", tt.from, tt.to)
		}
	}
}

func TestStatusEndedValid(t *testing.T) {
	tests := []struct {
		s            session.Status
		ended, valid bool
	}{
		{session.Pending, false, true},
		{session.Running, false, true},
		{session.Completed, true, true},
		{session.Failed, true, true},
		{session.Crashed, true, true},
		{session.Killed, true, true},
		{session.TimedOut, true, true},
		{"bogus", false, false},
		{"", false, false},
		{"Completed", false, false},
	}
	for _, tt := range tests {
		if got := tt.s.Ended(); got != tt.ended {
			t.Errorf("%q.Ended() = %v, want %v", tt.s, got, tt.ended)
		}
		if got := tt.s.Valid(); got != tt.valid {
			t.Errorf("%q.Valid() = %v, want %v", tt.s, got, tt.valid)
		}
	}
}

func TestStateDuration(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(time.Hour)
	tests := []struct {
		name           string
		started, ended time.Time
		want           time.Duration
	}{
		{"not started", time.Time{}, time.Time{}, 0},
		{"running", t0, time.Time{}, time.Hour},
		{"ended", t0, t0.Add(90 * time.Second), 90 * time.Second},
	}
	for _, tt := range tests {
		st := &session.State{StartedAt: tt.started, EndedAt: tt.ended}
		if got := st.Duration(now); got != tt.want {
			t.Errorf("%s: Duration = %v, want %v", tt.name, got, tt.want)
		}
	}
}
