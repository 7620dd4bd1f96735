package lock

import (
	"path/filepath"
	"testing"
)

// TestReleaseForgetsTheOwner: a process that released an owned lock and
// lives on is not named its owner, so a status check holding the lock for
// a moment is not mistaken for it.
func TestReleaseForgetsTheOwner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	o, err := TakeOwned(path)
	if err != nil {
		t.Fatal(err)
	}
	if !ownerAlive(path) {
		t.Fatal("the holder is not named alive")
	}
	o.Release()
	if ownerAlive(path) {
		t.Fatal("after Release this process is still named the owner")
	}
}
