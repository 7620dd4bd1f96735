package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// writeFile writes content to abs, creating parent directories, keeping an
// existing file's mode (and inode: links to it stay links), and records
// the file as the model now knows it.
func writeFile(env *tool.Env, abs, content string) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(abs, []byte(content), mode); err != nil {
		return err
	}
	if env.Files != nil {
		env.Files.Record(abs)
	}
	return nil
}

// checkFresh refuses an existing file the model has not read, or that
// changed since; a missing file passes (it is being created).
func checkFresh(env *tool.Env, abs string) error {
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory", abs)
	}
	if env.Files == nil {
		return nil
	}
	return env.Files.CheckFresh(abs)
}

// edit is one exact replacement.
type edit struct {
	OldString  string `json:"old_string" jsonschema:"The text to replace"`
	NewString  string `json:"new_string" jsonschema:"The text to replace it with"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace all occurrences of old_string (default false)" jsonschema_extras:"default=false"`
}

// apply performs e on content; exists says whether the file exists (an
// empty old_string creates a missing or fills an empty file).
func (e edit) apply(content string, exists bool) (string, error) {
	if e.OldString == e.NewString {
		return "", errors.New("old_string and new_string are the same: nothing to change")
	}
	if e.OldString == "" {
		if exists && content != "" {
			return "", errors.New("old_string is empty but the file is not: give the text to replace (an empty old_string only creates a new file)")
		}
		return e.NewString, nil
	}
	if !exists {
		return "", errors.New("the file does not exist (an empty old_string creates it)")
	}
	n := strings.Count(content, e.OldString)
	switch {
	case n == 0:
		return "", errors.New("old_string was not found in the file (it must match exactly, including whitespace and indentation)")
	case n > 1 && !e.ReplaceAll:
		return "", fmt.Errorf("old_string occurs %d times: add surrounding context to make it unique, or set replace_all to replace every occurrence", n)
	case e.ReplaceAll:
		return strings.ReplaceAll(content, e.OldString, e.NewString), nil
	}
	return strings.Replace(content, e.OldString, e.NewString, 1), nil
}

// loadForEdit reads the file an edit applies to, after the freshness
// check; exists is false for a file yet to be created.
func loadForEdit(env *tool.Env, path string) (abs, content string, exists bool, res *tool.Result) {
	abs, err := env.Resolve(path)
	if err != nil {
		r := tool.Errorf("%v", err)
		return "", "", false, &r
	}
	if err := checkFresh(env, abs); err != nil {
		r := tool.Errorf("%v", err)
		return "", "", false, &r
	}
	b, err := os.ReadFile(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return abs, "", false, nil
	case err != nil:
		r := tool.Errorf("cannot read %s: %v", abs, unwrapPath(err))
		return "", "", false, &r
	}
	if isBinary(b[:min(len(b), 8000)]) {
		r := tool.Errorf("%s is a binary file; it cannot be edited as text", abs)
		return "", "", false, &r
	}
	return abs, string(b), true, nil
}

// snippet shows the lines around the first difference between before and
// after, numbered like Read, so the model sees its edit in place.
func snippet(before, after string) string {
	i := 0
	for i < len(before) && i < len(after) && before[i] == after[i] {
		i++
	}
	al := strings.Split(after, "\n")
	line := strings.Count(after[:i], "\n")
	changed := strings.Count(after, "\n") - strings.Count(before, "\n")
	from, to := max(0, line-4), min(len(al), line+max(changed, 0)+5)
	var b strings.Builder
	for n := from; n < to; n++ {
		fmt.Fprintf(&b, "%6d\t%s\n", n+1, truncate(al[n], readMaxLineLen))
	}
	return b.String()
}
