package interactive

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestJournalBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 5000 {
		if err := Append(dir, EvInputSent, map[string]any{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	es, err := ReadJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) > JournalMaxLines || len(es) < JournalMaxLines/2 {
		t.Fatalf("%d entries after 5000 appends, want between %d and %d", len(es), JournalMaxLines/2, JournalMaxLines)
	}
	var last struct{ I int }
	if err := jsonUnmarshal(es[len(es)-1].Data, &last); err != nil || last.I != 4999 {
		t.Fatalf("last entry %s, want i 4999", es[len(es)-1].Data)
	}
	fi, _ := os.Stat(filepath.Join(dir, ActivityFile))
	if fi.Size() > JournalMaxBytes || fi.Mode().Perm() != 0o600 {
		t.Fatalf("journal %d bytes, mode %v", fi.Size(), fi.Mode().Perm())
	}
}

func TestJournalBigEntriesTrimmedByBytes(t *testing.T) {
	dir := t.TempDir()
	big := string(make([]byte, 3000))
	for range 300 {
		if err := Append(dir, EvTurnDone, map[string]any{"m": big}); err != nil {
			t.Fatal(err)
		}
	}
	fi, _ := os.Stat(filepath.Join(dir, ActivityFile))
	if fi.Size() > JournalMaxBytes {
		t.Fatalf("journal is %d bytes, bound %d", fi.Size(), JournalMaxBytes)
	}
}

func TestTurnsConcurrentUpdates(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := UpdateTurns(dir, func(tu *Turns) { tu.Turns++; tu.LastTurnAt = time.Now() }); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	tu, err := ReadTurns(dir)
	if err != nil || tu.Turns != 200 {
		t.Fatalf("turns %d (%v), want 200", tu.Turns, err)
	}
	// A damaged file is replaced, not fatal.
	os.WriteFile(filepath.Join(dir, TurnsFile), []byte("{garbage"), 0o600)
	if tu, err := UpdateTurns(dir, func(tu *Turns) { tu.Turns++ }); err != nil || tu.Turns != 1 {
		t.Fatalf("after damage: %d, %v", tu.Turns, err)
	}
}

func TestEchoOf(t *testing.T) {
	for _, c := range []struct {
		text  string
		enter bool
		want  int64
	}{{"abc", true, 5}, {"a\nb", false, 4}, {"", true, 2}} {
		if got := EchoOf(c.text, c.enter); got != c.want {
			t.Errorf("EchoOf(%q, %v) = %d, want %d", c.text, c.enter, got, c.want)
		}
	}
	_ = fmt.Sprint
}

func TestIndex(t *testing.T) {
	root := t.TempDir()
	sessions := filepath.Join(root, "sessions")
	for _, id := range []string{"01B", "01A", "01C"} {
		os.MkdirAll(filepath.Join(sessions, id), 0o700)
		if err := AddToIndex(sessions, id); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(filepath.Join(sessions, "01B"))
	ids, err := IndexedIDs(sessions)
	if err != nil || fmt.Sprint(ids) != "[01A 01C]" {
		t.Fatalf("%v %v", ids, err)
	}
	if _, err := os.Stat(filepath.Join(root, "interactive", "01B")); !os.IsNotExist(err) {
		t.Fatal("the removed session stayed in the index")
	}
}
