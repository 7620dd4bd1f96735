package session_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func newStore(t *testing.T) *session.Store {
	t.Helper()
	s, err := session.Open(filepath.Join(t.TempDir(), "projects", "p", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// idAt returns a fresh id whose time part is t0 plus i milliseconds, so ids
// made with increasing i sort in creation order.
func idAt(i int) string { return session.NewID(t0.Add(time.Duration(i) * time.Millisecond)) }

// create makes the directory and a minimal saved state of id.
func create(t *testing.T, s *session.Store, id, parent string) *session.State {
	t.Helper()
	if err := s.MakeDir(id); err != nil {
		t.Fatal(err)
	}
	st := &session.State{ID: id, Tool: "codex", Status: session.Pending, ParentID: parent, CreatedAt: t0}
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	return st
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestSaveLoadRoundTrip(t *testing.T) {
	s := newStore(t)
	id := idAt(0)
	if err := s.MakeDir(id); err != nil {
		t.Fatal(err)
	}
	code := 3
	want := &session.State{
		ID: id, Tool: "claude-code", Model: "opus", Status: session.Failed,
		ProjectRoot: "/p", Cwd: "/p/sub",
		Depth: 2, ParentID: idAt(-5), ParentTool: "codex",
		CreatedAt: t0.Add(123456789), StartedAt: t0.Add(time.Second + 42), EndedAt: t0.Add(time.Minute + 7),
		Program: "/usr/bin/claude", Args: []string{"-p", "say \"hi\"\nand 'bye'", ""},
		PromptBytes: 17, PromptVia: "stdin", Detached: true,
		TimeoutMS: 60000, IdleMS: 5000, GraceMS: 250,
		SupervisorPID: 100, PID: 101, PGID: 101,
		ExitCode: &code, Signal: "SIGTERM", Reason: "program exited with status 3",
		Failure:           &session.Failure{Class: session.FailCrashed, Message: "program exited with status 3: boom"},
		Result:            "line one\nline \"two\" ✓",
		ProviderSessionID: "prov-1",
		Usage:             &session.Usage{InputTokens: 1 << 40, OutputTokens: 7, CachedTokens: 3},
		OutputBytes:       1 << 33, OutputTruncated: true, Turns: 4,
	}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		name string
		a, b time.Time
	}{{"CreatedAt", got.CreatedAt, want.CreatedAt}, {"StartedAt", got.StartedAt, want.StartedAt}, {"EndedAt", got.EndedAt, want.EndedAt}} {
		if !p.a.Equal(p.b) {
			t.Errorf("%s = %v, want %v", p.name, p.a, p.b)
		}
	}
	if got.ExitCode == nil || *got.ExitCode != 3 {
		t.Errorf("ExitCode = %v, want pointer to 3", got.ExitCode)
	}
	g, w := *got, *want
	g.CreatedAt, g.StartedAt, g.EndedAt, g.ExitCode = time.Time{}, time.Time{}, time.Time{}, nil
	w.CreatedAt, w.StartedAt, w.EndedAt, w.ExitCode = time.Time{}, time.Time{}, time.Time{}, nil
	if !reflect.DeepEqual(g, w) {
		t.Errorf("round trip mismatch:\n got %+v\nwant %+v", g, w)
	}
}

func TestRoundTripOptionalFieldsAbsent(t *testing.T) {
	s := newStore(t)
	zero := 0
	tests := []struct {
		name string
		code *int
	}{{"no exit code", nil}, {"exit code zero", &zero}}
	for i, tt := range tests {
		id := idAt(i)
		if err := s.MakeDir(id); err != nil {
			t.Fatal(err)
		}
		st := &session.State{ID: id, Tool: "codex", Status: session.Running, CreatedAt: t0, ExitCode: tt.code}
		if err := s.Save(st); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.code == nil && got.ExitCode != nil:
			t.Errorf("%s: ExitCode = %d, want nil", tt.name, *got.ExitCode)
		case tt.code != nil && (got.ExitCode == nil || *got.ExitCode != *tt.code):
			t.Errorf("%s: ExitCode = %v, want %d", tt.name, got.ExitCode, *tt.code)
		}
		if got.Failure != nil || got.Usage != nil {
			t.Errorf("%s: Failure %v, Usage %v, want nil", tt.name, got.Failure, got.Usage)
		}
		if !got.StartedAt.IsZero() || !got.EndedAt.IsZero() {
			t.Errorf("%s: zero times came back as %v, %v", tt.name, got.StartedAt, got.EndedAt)
		}
	}
}

func TestPermissions(t *testing.T) {
	s := newStore(t)
	if m := mode(t, s.Root()); m != 0o700 {
		t.Errorf("sessions dir mode = %v, want 0700", m)
	}
	id := idAt(0)
	create(t, s, id, "")
	if m := mode(t, s.Dir(id)); m != 0o700 {
		t.Errorf("session dir mode = %v, want 0700", m)
	}
	if m := mode(t, s.Path(id, session.StateFile)); m != 0o600 {
		t.Errorf("state file mode = %v, want 0600", m)
	}
	if _, err := s.Update(context.Background(), id, func(st *session.State) error { st.Turns++; return nil }); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, s.Path(id, session.StateFile)); m != 0o600 {
		t.Errorf("state file mode after Update = %v, want 0600", m)
	}
}

func TestMakeDirRejectsBadIDs(t *testing.T) {
	s := newStore(t)
	good := idAt(0)
	for _, id := range []string{"", "../x", "01AR", strings.ToLower(good), good + "0", "8" + good[1:], "01ARZ3NDEKTSV4RRFFQ69G5FA/"} {
		if err := s.MakeDir(id); err == nil {
			t.Errorf("MakeDir(%q) succeeded, want an error", id)
		}
	}
	ents, err := os.ReadDir(s.Root())
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("rejected ids left entries behind: %v", ents)
	}
	if err := s.MakeDir(good); err != nil {
		t.Fatal(err)
	}
	if err := s.MakeDir(good); err == nil {
		t.Error("MakeDir of an existing session succeeded, want an error")
	}
}

func TestLoadErrors(t *testing.T) {
	s := newStore(t)
	noState := idAt(1)
	if err := s.MakeDir(noState); err != nil {
		t.Fatal(err)
	}
	corrupt := idAt(2)
	if err := s.MakeDir(corrupt); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(corrupt, session.StateFile), []byte("id = \"unterminated\nstate = [[[\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other, wrong := idAt(3), idAt(4)
	create(t, s, other, "")
	if err := s.MakeDir(wrong); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.Path(other, session.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(wrong, session.StateFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	badStatus := idAt(5)
	if err := s.MakeDir(badStatus); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(&session.State{ID: badStatus, Status: "exploded"}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name        string
		id          string
		notFound    bool
		corruptWhat string
	}{
		{"missing dir", idAt(0), true, ""},
		{"dir without state", noState, false, "state file missing"},
		{"unparsable state", corrupt, false, ""},
		{"state naming another id", wrong, false, other},
		{"unknown status", badStatus, false, "exploded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := s.Load(tt.id)
			if st != nil {
				t.Errorf("Load returned a state with error %v", err)
			}
			if tt.notFound {
				var nf *session.NotFoundError
				if !errors.As(err, &nf) || nf.Prefix != tt.id {
					t.Fatalf("Load = %v, want *NotFoundError for %s", err, tt.id)
				}
				return
			}
			var ce *session.CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Load = %v (%T), want *CorruptError", err, err)
			}
			if ce.ID != tt.id {
				t.Errorf("CorruptError.ID = %q, want %q", ce.ID, tt.id)
			}
			if !strings.Contains(err.Error(), tt.corruptWhat) {
				t.Errorf("error %q does not mention %q", err, tt.corruptWhat)
			}
		})
	}
	// Load must not create anything for a missing session.
	if _, err := os.Stat(s.Dir(idAt(0))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing session created its directory: %v", err)
	}
}

func TestResolve(t *testing.T) {
	s := newStore(t)
	// Hand-made ids with controlled shared prefixes.
	ids := []string{
		"01HAAAAAAA0000000000000001",
		"01HAAAAAAA0000000000000002",
		"01HAAAAAAB0000000000000000",
		"01HZZZZZZZ0000000000000000",
	}
	for _, id := range ids {
		create(t, s, id, "")
	}
	tests := []struct {
		name       string
		in         string
		want       string
		notFound   bool
		invalid    bool
		candidates []string
	}{
		{"full id", ids[2], ids[2], false, false, nil},
		{"full id lower case", strings.ToLower(ids[3]), ids[3], false, false, nil},
		{"unique prefix", "01HAAAAAAB", ids[2], false, false, nil},
		{"unique prefix lower case", "01hz", ids[3], false, false, nil},
		{"unique long prefix", ids[2][:25], ids[2], false, false, nil},
		{"ambiguous 25 chars", ids[1][:25], "", false, false, ids[:2]},
		{"ambiguous", "01haaaaaaa", "", false, false, ids[:2]},
		{"ambiguous short", "01H", "", false, false, ids},
		{"no match", "01HB", "", true, false, nil},
		{"no match before all", "00", "", true, false, nil},
		{"full id absent", "01HAAAAAAA0000000000000003", "", true, false, nil},
		{"invalid", "../x", "", false, true, nil},
		{"empty", "", "", false, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Resolve(tt.in)
			switch {
			case tt.want != "":
				if err != nil || got != tt.want {
					t.Fatalf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
				}
			case tt.candidates != nil:
				var amb *session.AmbiguousError
				if !errors.As(err, &amb) {
					t.Fatalf("Resolve(%q) = %q, %v; want *AmbiguousError", tt.in, got, err)
				}
				if !reflect.DeepEqual(amb.Candidates, tt.candidates) {
					t.Errorf("candidates = %v, want %v", amb.Candidates, tt.candidates)
				}
				for _, c := range tt.candidates {
					if !strings.Contains(err.Error(), c) {
						t.Errorf("error %q does not list %s", err, c)
					}
				}
			case tt.notFound:
				var nf *session.NotFoundError
				if !errors.As(err, &nf) {
					t.Fatalf("Resolve(%q) = %q, %v; want *NotFoundError", tt.in, got, err)
				}
				if nf.Prefix != tt.in {
					t.Errorf("NotFoundError.Prefix = %q, want the input %q", nf.Prefix, tt.in)
				}
			case tt.invalid:
				var inv *session.InvalidIDError
				if !errors.As(err, &inv) {
					t.Fatalf("Resolve(%q) = %q, %v; want *InvalidIDError", tt.in, got, err)
				}
			}
		})
	}
}

func TestIDsIgnoresNonULIDs(t *testing.T) {
	s := newStore(t)
	a, b := idAt(1), idAt(2)
	create(t, s, b, "")
	create(t, s, a, "")
	for _, name := range []string{
		"notes.txt",
		".hidden",
		strings.ToLower(idAt(3)),      // lower case is not how we store ids
		"01HAAAAAAA000000000000000U",  // U is not a ULID character
		"81HAAAAAAA0000000000000000",  // timestamp overflow
		"01HAAAAAAA000000000000000",   // too short
		"01HAAAAAAA00000000000000000", // too long
		"." + idAt(4) + ".tmp-1",      // atomic-write leftovers
	} {
		if err := os.Mkdir(filepath.Join(s.Root(), name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.IDs()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{a, b}; !reflect.DeepEqual(got, want) {
		t.Errorf("IDs = %v, want %v", got, want)
	}
}

func TestListParallel(t *testing.T) {
	s := newStore(t)
	const n = 150 // well above the 64 that switches to several workers
	var ids []string
	missing, corrupt := map[string]bool{}, map[string]bool{}
	for i := 0; i < n; i++ {
		id := idAt(i)
		ids = append(ids, id)
		switch {
		case i%37 == 5:
			if err := s.MakeDir(id); err != nil {
				t.Fatal(err)
			}
			missing[id] = true
		case i%41 == 7:
			if err := s.MakeDir(id); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.Path(id, session.StateFile), []byte("not = toml = at all"), 0o600); err != nil {
				t.Fatal(err)
			}
			corrupt[id] = true
		default:
			st := create(t, s, id, "")
			st.Turns = i
			if err := s.Save(st); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(missing) == 0 || len(corrupt) == 0 {
		t.Fatal("test setup made no broken sessions")
	}
	// Shuffle-proof: directory order is not creation order, List must sort.
	if !sort.StringsAreSorted(ids) {
		t.Fatal("test ids are not in creation order")
	}
	entries, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		t.Fatalf("List returned %d entries, want %d", len(entries), n)
	}
	for i, e := range entries {
		if e.ID != ids[i] {
			t.Fatalf("entry %d is %s, want %s (creation order)", i, e.ID, ids[i])
		}
		var ce *session.CorruptError
		switch {
		case missing[e.ID] || corrupt[e.ID]:
			if !errors.As(e.Err, &ce) || e.State != nil {
				t.Errorf("entry %d (%s): state %v, err %v; want *CorruptError", i, e.ID, e.State, e.Err)
			}
		default:
			if e.Err != nil || e.State == nil || e.State.ID != e.ID || e.State.Turns != i {
				t.Errorf("entry %d (%s): state %+v, err %v", i, e.ID, e.State, e.Err)
			}
		}
	}
}

func TestListSmall(t *testing.T) {
	s := newStore(t)
	if entries, err := s.List(); err != nil || len(entries) != 0 {
		t.Fatalf("List of an empty store = %v, %v", entries, err)
	}
	a, b := idAt(1), idAt(2)
	create(t, s, b, "")
	create(t, s, a, "")
	entries, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].ID != a || entries[1].ID != b || entries[0].Err != nil || entries[1].State == nil {
		t.Errorf("List = %+v, want %s then %s", entries, a, b)
	}
}

func TestUpdateSerializes(t *testing.T) {
	s := newStore(t)
	id := idAt(0)
	create(t, s, id, "")
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	seen := make(chan int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := s.Update(context.Background(), id, func(st *session.State) error {
				st.Turns++
				return nil
			})
			if err != nil {
				errs <- err
				return
			}
			seen <- st.Turns
		}()
	}
	wg.Wait()
	close(errs)
	close(seen)
	for err := range errs {
		t.Error(err)
	}
	got := map[int]bool{}
	for v := range seen {
		if got[v] {
			t.Errorf("two updates both produced Turns = %d (lost update)", v)
		}
		got[v] = true
	}
	st, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Turns != n {
		t.Errorf("Turns = %d after %d concurrent increments", st.Turns, n)
	}
}

func TestUpdateNoChangeLeavesFileUntouched(t *testing.T) {
	s := newStore(t)
	id := idAt(0)
	create(t, s, id, "")
	path := s.Path(id, session.StateFile)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fiBefore, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Update(context.Background(), id, func(st *session.State) error {
		st.Turns = 99 // changed in memory, but fn says not to save
		return session.ErrNoChange
	})
	if err != nil {
		t.Fatalf("Update with ErrNoChange = %v, want nil", err)
	}
	if st == nil || st.ID != id {
		t.Fatalf("Update returned %+v", st)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fiAfter, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("state file changed:\n%s\n---\n%s", before, after)
	}
	// An atomic write replaces the file: same inode and mtime means no write.
	if !os.SameFile(fiBefore, fiAfter) || !fiBefore.ModTime().Equal(fiAfter.ModTime()) {
		t.Error("state file was rewritten although fn returned ErrNoChange")
	}
}

func TestUpdateErrors(t *testing.T) {
	s := newStore(t)
	id := idAt(0)
	create(t, s, id, "")
	boom := errors.New("boom")
	_, err := s.Update(context.Background(), id, func(st *session.State) error {
		st.Turns = 5
		return fmt.Errorf("wrapped: %w", boom)
	})
	if !errors.Is(err, boom) {
		t.Errorf("Update = %v, want fn's error", err)
	}
	if st, err := s.Load(id); err != nil || st.Turns != 0 {
		t.Errorf("failed Update saved: %+v, %v", st, err)
	}
	_, err = s.Update(context.Background(), id, func(st *session.State) error { return st.Move(session.Completed) })
	var te *session.TransitionError
	if !errors.As(err, &te) {
		t.Errorf("Update with a forbidden move = %v, want *TransitionError", err)
	}
	if st, err := s.Load(id); err != nil || st.Status != session.Pending {
		t.Errorf("forbidden move was saved: %+v, %v", st, err)
	}

	missing := idAt(1)
	if _, err := s.Update(context.Background(), missing, func(*session.State) error { return nil }); err == nil {
		t.Error("Update of a missing session succeeded")
	}
	if _, err := os.Stat(s.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Update of a missing session created its directory: %v", err)
	}
}

func TestRemove(t *testing.T) {
	s := newStore(t)
	id := idAt(0)
	create(t, s, id, "")
	if err := os.WriteFile(s.Path(id, session.OutputFile), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(id); !errors.As(err, new(*session.NotFoundError)) {
		t.Errorf("Load after Remove = %v, want *NotFoundError", err)
	}
}

func TestAncestors(t *testing.T) {
	s := newStore(t)
	root, mid, leaf := idAt(1), idAt(2), idAt(3)
	create(t, s, root, "")
	create(t, s, mid, root)
	create(t, s, leaf, mid)
	orphan, gone := idAt(4), idAt(5)
	create(t, s, orphan, gone)
	cycA, cycB := idAt(6), idAt(7)
	create(t, s, cycA, cycB)
	create(t, s, cycB, cycA)
	self := idAt(8)
	create(t, s, self, self)
	// tail -> loopX -> loopY -> loopX
	tail, loopX, loopY := idAt(9), idAt(10), idAt(11)
	create(t, s, tail, loopX)
	create(t, s, loopX, loopY)
	create(t, s, loopY, loopX)

	tests := []struct {
		name string
		id   string
		want []string
	}{
		{"root", root, nil},
		{"chain", leaf, []string{mid, root}},
		{"one up", mid, []string{root}},
		{"missing parent ends the chain", orphan, []string{gone}},
		{"two-cycle", cycA, []string{cycB}},
		{"self parent", self, nil},
		{"cycle above", tail, []string{loopX, loopY}},
		{"missing session", idAt(12), nil},
	}
	for _, tt := range tests {
		if got := s.Ancestors(tt.id); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Ancestors = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSupervisorAliveInProcess(t *testing.T) {
	s := newStore(t)
	id := idAt(0)
	create(t, s, id, "")
	if s.SupervisorAlive(id) {
		t.Error("SupervisorAlive without a lock file = true")
	}
	if err := os.WriteFile(s.Path(id, session.SupervisorLock), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if s.SupervisorAlive(id) {
		t.Error("SupervisorAlive with a free lock = true")
	}
}
