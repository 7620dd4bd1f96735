package store

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

func TestList(t *testing.T) {
	dir := t.TempDir()
	if got, err := List(dir + "/none"); err != nil || len(got) != 0 {
		t.Fatalf("List of a missing dir = %v, %v", got, err)
	}
	old, _ := Create(dir, "old", Record{Model: "m1", Cwd: "/a"})
	old.Message(llm.UserText("first   question\nwith lines"))
	old.Close()
	fresh, _ := Create(dir, "new", Record{Model: "m2", Cwd: "/b"})
	fresh.Message(llm.UserText(strings.Repeat("x", 500)))
	fresh.Close()
	os.Chtimes(Path(dir, "old"), time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	os.WriteFile(dir+"/notes.txt", []byte("not a session"), 0o600)

	got, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "new" || got[1].ID != "old" {
		t.Fatalf("List = %+v, want new then old", got)
	}
	if o := got[1]; o.Model != "m1" || o.Cwd != "/a" || o.Preview != "first question with lines" || o.Created.IsZero() {
		t.Errorf("old = %+v", o)
	}
	if p := []rune(got[0].Preview); len(p) != previewLen || p[len(p)-1] != '…' {
		t.Errorf("a long first message is shortened to %d runes: %q", previewLen, got[0].Preview)
	}
	if _, err := Summarise(dir, "../x"); err == nil {
		t.Error("Summarise took a path for an id")
	}
}
