package interactive

import (
	"os"
	"path/filepath"
	"sort"
)

// The index lists a project's interactive sessions as empty files named by
// id beside its sessions directory, so `csa status --all` reads a handful of
// states, not every session the project ever had.

func indexDir(sessionsDir string) string {
	return filepath.Join(filepath.Dir(sessionsDir), "interactive")
}

// AddToIndex records id as an interactive session of the store.
func AddToIndex(sessionsDir, id string) error {
	dir := indexDir(sessionsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, id), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// IndexedIDs lists the indexed ids, oldest first; entries whose session
// directory is gone (csa rm, gc) are dropped from the index.
func IndexedIDs(sessionsDir string) ([]string, error) {
	dir := indexDir(sessionsDir)
	names, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	ids := names[:0]
	for _, id := range names {
		if _, err := os.Stat(filepath.Join(sessionsDir, id)); os.IsNotExist(err) {
			os.Remove(filepath.Join(dir, id))
			continue
		}
		ids = append(ids, id)
	}
	sort.Strings(ids) // ULIDs sort by creation time
	return ids, nil
}

func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
