package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
)

// readHead reads a definition file's front matter only: a session lists
// its agents at start and reads an agent's prompt when it is used
// (Instructions).
func readHead(path string) (Definition, error) {
	fm, _, err := frontmatter.ReadHead(path)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return Definition{}, fmt.Errorf("subagent definition %s: %w", path, err)
	}
	d, err := fromFront(path, fm, err, false)
	if err == nil {
		err = d.check()
	}
	d.onDisk = err == nil
	return d, err
}

// Instructions is the definition's prompt: Prompt, or the body of the
// file Load found it in, read now.
func (d Definition) Instructions() (string, error) {
	if !d.onDisk {
		return d.Prompt, nil
	}
	body, err := frontmatter.ReadBody(d.Path)
	if err != nil {
		return "", fmt.Errorf("subagent definition %s: %w", d.Path, err)
	}
	return strings.TrimSpace(body), nil
}
