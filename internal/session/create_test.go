package session_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/session"
)

func TestParseID(t *testing.T) {
	id := idAt(1)
	for _, in := range []string{id, strings.ToLower(id)} {
		got, err := session.ParseID(in)
		if err != nil || got != id {
			t.Errorf("ParseID(%q) = %q, %v; want %q", in, got, err, id)
		}
	}
	for _, bad := range []string{"", id[:10], id + "0", "../" + id[3:], "8" + id[1:], "I" + id[1:]} {
		_, err := session.ParseID(bad)
		var inv *session.InvalidIDError
		if !errors.As(err, &inv) {
			t.Errorf("ParseID(%q) = %v, want an InvalidIDError", bad, err)
		}
	}
}

func TestCreateRefusesAnExistingID(t *testing.T) {
	s := newStore(t)
	id := idAt(2)
	create(t, s, id, "")
	if err := s.Taken(id); !isExists(err, id) {
		t.Fatalf("Taken of a saved session = %v, want ExistsError", err)
	}
	h, err := s.Create(id)
	if !isExists(err, id) {
		t.Fatalf("Create of a saved session = %v, want ExistsError", err)
	}
	if h != nil {
		t.Fatal("Create of an existing id returned a lock")
	}
	if st, err := s.Load(id); err != nil || st.Status != session.Pending {
		t.Fatalf("the existing session was touched: %v, %v", st, err)
	}
}

// A session being created (its supervisor lock held, no state yet) is
// taken; once its creator is gone the directory is stillborn, and Create
// makes the session there afresh.
func TestCreateTakesOverAStillbornDirectory(t *testing.T) {
	s := newStore(t)
	id := idAt(3)
	creator, err := s.Create(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(id, session.PromptFile), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s.Stillborn(id) {
		t.Fatal("a directory whose creator holds its lock is stillborn")
	}
	if err := s.Taken(id); !isExists(err, id) {
		t.Fatalf("Taken while being created = %v, want ExistsError", err)
	}
	if _, err := s.Create(id); !isExists(err, id) {
		t.Fatalf("Create while being created = %v, want ExistsError", err)
	}
	creator.Release() // the creator is killed before it saves a state
	if !s.Stillborn(id) {
		t.Fatal("a stateless directory without a live lock holder is not stillborn")
	}
	if err := s.Taken(id); err != nil {
		t.Fatalf("Taken of a stillborn directory = %v, want nil", err)
	}
	h, err := s.Create(id)
	if err != nil {
		t.Fatalf("Create over a stillborn directory: %v", err)
	}
	defer h.Release()
	if _, err := os.Stat(s.Path(id, session.PromptFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed creator's prompt.txt survived the take-over: %v", err)
	}
	if !s.SupervisorAlive(id) {
		t.Error("the take-over does not hold the supervisor lock")
	}
	if _, err := s.Create(id); !isExists(err, id) {
		t.Fatalf("a second Create while the first holds it = %v, want ExistsError", err)
	}
}

func isExists(err error, id string) bool {
	var e *session.ExistsError
	return errors.As(err, &e) && e.ID == id
}
