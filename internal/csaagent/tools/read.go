package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Read limits.
const (
	readMaxLines   = 2000
	readMaxLineLen = 2000
)

// Read reads a text file with numbered lines.
type Read struct{ base[readInput] }

// NewRead is the Read tool.
func NewRead() *Read {
	return &Read{base[readInput]{"Read", readDesc}}
}

const readDesc = `Reads a file from the local filesystem.

Usage:
- The file_path parameter should be an absolute path; a relative path is taken from the working directory. Paths outside the allowed directories are refused.
- By default, it reads up to 2000 lines starting from the beginning of the file.
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters.
- Any lines longer than 2000 characters will be truncated.
- Results are returned using cat -n format, with line numbers starting at 1.
- This tool reads text files only; a directory is an error (use LS or Bash ls), and so is a binary file.
- You must Read a file before you Edit or overwrite it; the read is remembered.
- You can call multiple tools in a single response. It is always better to speculatively read multiple potentially useful files in parallel.
- If you read a file that exists but has empty contents you will receive a warning in place of file contents.`

func (*Read) ConcurrencySafe(json.RawMessage) bool { return true }
func (*Read) ReadOnly(json.RawMessage) bool        { return true }
func (*Read) Subject(in json.RawMessage) string    { return field(in, "file_path") }

type readInput struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to read"`
	Offset   int    `json:"offset,omitempty" jsonschema:"The line number to start reading from. Only provide if the file is too large to read at once" jsonschema_extras:"minimum=1"`
	Limit    int    `json:"limit,omitempty" jsonschema:"The number of lines to read. Only provide if the file is too large to read at once" jsonschema_extras:"minimum=1"`
}

func (rd *Read) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := rd.parse(input)
	if !ok {
		return bad, nil
	}
	abs, err := env.Resolve(in.FilePath)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return tool.Errorf("cannot read %s: %v", abs, unwrapPath(err)), nil
	}
	if fi.IsDir() {
		return tool.Errorf("%s is a directory, not a file: use LS (or Bash ls) to list it", abs), nil
	}
	// One open for the binary check and the lines: a named pipe can be
	// read only once.
	f, err := os.Open(abs)
	if err != nil {
		return tool.Errorf("cannot read %s: %v", abs, unwrapPath(err)), nil
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 8000)
	if head, _ := r.Peek(8000); isBinary(head) {
		return tool.Errorf("%s is a binary file (%d bytes); Read shows text only", abs, fi.Size()), nil
	}
	out, view := readLines(r, in.Offset, in.Limit)
	if env.Files != nil {
		env.Files.Record(abs)
	}
	view.FilePath = abs
	return tool.Result{Output: out, Response: readResponse{Type: "text", File: view}}, nil
}

// readLines formats lines offset.. of path as cat -n does, with a note when
// more remain, and says which lines it showed as Claude Code counts them
// (the text after a final newline is one more, empty line).
func readLines(r *bufio.Reader, offset, limit int) (string, readFile) {
	if offset < 1 {
		offset = 1
	}
	if limit < 1 || limit > readMaxLines {
		limit = readMaxLines
	}
	var b, raw strings.Builder
	n, shown, last := 0, 0, 0
	endsLine := true // the text read so far ends with a newline (or is empty)
	for {
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			break
		}
		n++
		endsLine = strings.HasSuffix(line, "\n")
		if n >= offset && shown < limit {
			raw.WriteString(line)
			line = strings.TrimRight(line, "\r\n")
			if len(line) > readMaxLineLen {
				line = truncate(line, readMaxLineLen)
				line = strings.ReplaceAll(line, "\n", " ")
			}
			fmt.Fprintf(&b, "%6d\t%s\n", n, line)
			shown++
			last = n
		}
		if err != nil {
			break
		}
	}
	// Claude Code's lines are the text split at newlines: the shown ones
	// joined, the empty one after a final newline included when reached.
	view := readFile{Content: strings.TrimSuffix(raw.String(), "\n"), StartLine: offset, NumLines: shown, TotalLines: n}
	if endsLine {
		view.TotalLines++
		if last == n && shown < limit {
			view.NumLines++
			view.Content = raw.String()
		}
	}
	switch {
	case n == 0:
		return "<system-reminder>Warning: the file exists but its contents are empty.</system-reminder>", view
	case shown == 0:
		return fmt.Sprintf("<system-reminder>Warning: the file has only %s; offset %d is past its end.</system-reminder>", plural(n, "line"), offset), view
	case last < n:
		fmt.Fprintf(&b, "\n[Showing lines %d-%d of %d. Use offset and limit to read more.]\n", offset, last, n)
	}
	return b.String(), view
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
