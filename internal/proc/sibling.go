package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Sibling finds program beside this process's own executable (make build
// and make install put csa's programs side by side, and the one built with
// this program wins), else on PATH.
func Sibling(program string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), program)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(program); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s is neither beside %s nor on PATH: it is built with csa (make build, make install)", program, filepath.Base(os.Args[0]))
}

// BecomeSibling replaces this process with program (found as Sibling
// finds it) run with args: csa handing a command over to csa-cluster,
// csa-mcp or csa-ui. It returns only when that cannot be done.
func BecomeSibling(program string, args ...string) error {
	path, err := Sibling(program)
	if err != nil {
		return err
	}
	return Replace(path, append([]string{path}, args...), os.Environ())
}
