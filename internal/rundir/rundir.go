// Package rundir is the user's private directory for csa's sockets (the
// tmux servers of interactive sessions, the keeper daemon).
package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// MaxLen keeps a socket path in the directory (the directory, "/" and a
// name of up to 17 bytes) under the 108 bytes a Unix socket address holds.
const MaxLen = 90

// Dir is $XDG_RUNTIME_DIR/csa (runtimeDir is that variable's value), else
// /tmp/csa-UID under the temporary directory, else /tmp/csa-UID when the
// path would be too long for a socket. It is created if need be and must
// be a directory private to this user: in a shared /tmp another user
// could otherwise plant a socket csa would talk to.
func Dir(runtimeDir string) (string, error) {
	own := "csa-" + strconv.Itoa(os.Getuid())
	dir := filepath.Join(os.TempDir(), own)
	if runtimeDir != "" {
		dir = filepath.Join(runtimeDir, "csa")
	}
	if len(dir) > MaxLen {
		dir = filepath.Join("/tmp", own)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		return "", fmt.Errorf("socket directory %s is not a private directory of this user", dir)
	}
	return dir, nil
}

func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
