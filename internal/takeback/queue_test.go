package takeback

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/csa-dev/csa/internal/session"
)

// Gather keeps the completed runs with a recorded change in the order
// given, says why each other run is left out, takes a session named
// twice once, and refuses while any run has not ended.
func TestGather(t *testing.T) {
	ws := func(head string) *session.Workspace {
		return &session.Workspace{Repo: "/r", Branch: "csa/" + head, Base: "b", Snapshot: "s", Head: head, Recorded: true}
	}
	states := map[string]*session.State{
		"C1": {ID: "C1", Status: session.Completed, Workspace: ws("h1")},
		"C2": {ID: "C2", Status: session.Completed, Workspace: ws("h2")},
		"F":  {ID: "F", Status: session.Failed, Workspace: ws("hf")},
		"T":  {ID: "T", Status: session.Completed}, // in the caller's tree
		"R":  {ID: "R", Status: session.Running, Workspace: &session.Workspace{Repo: "/r", Branch: "csa/R", Snapshot: "s"}},
		"P":  {ID: "P", Status: session.Pending},
	}
	load := func(id string) (*session.State, error) {
		if st, ok := states[id]; ok {
			return st, nil
		}
		return nil, &session.NotFoundError{Prefix: id}
	}
	runs := []Run{{"task z", "C2"}, {"task f", "F"}, {"task n", ""}, {"task t", "T"}, {"task g", "GONE"}, {"task a", "C1"}, {"again", "C2"}}
	changes, skipped, err := Gather(runs, load)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range changes {
		ids = append(ids, c.SessionID+":"+c.Head)
	}
	if want := []string{"C2:h2", "C1:h1"}; !slices.Equal(ids, want) {
		t.Errorf("changes %v, want %v (the order given)", ids, want)
	}
	var left []string
	for _, s := range skipped {
		left = append(left, s.Task)
	}
	if want := []string{"task f", "task n", "task t", "task g"}; !slices.Equal(left, want) {
		t.Errorf("left out %v, want %v", left, want)
	}
	if why := skipped[0].Why; why != "it ended failed (csa merge F takes its change anyway)" {
		t.Errorf("a failed run's note: %q", why)
	}

	_, _, err = Gather(append(runs, Run{"task r", "R"}, Run{"task p", "P"}), load)
	var sr *StillRunningError
	if !errors.As(err, &sr) || len(sr.Runs) != 2 || sr.Runs[0].SessionID != "R" || sr.Runs[1].SessionID != "P" {
		t.Fatalf("runs not ended: %v", err)
	}

	boom := fmt.Errorf("disk on fire")
	_, _, err = Gather([]Run{{"task x", "X"}}, func(string) (*session.State, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Errorf("a load error: %v", err)
	}
}
