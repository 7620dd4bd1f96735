package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Write creates or overwrites a file.
type Write struct{ base[writeInput] }

// NewWrite is the Write tool.
func NewWrite() *Write {
	return &Write{base[writeInput]{"Write", writeDesc}}
}

type writeInput struct {
	FilePath string  `json:"file_path" jsonschema:"The absolute path to the file to write (must be absolute, not relative)"`
	Content  *string `json:"content" jsonschema:"The content to write to the file"` // nil: missing, unlike ""
}

const writeDesc = `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first, or if it changed since you read it.
- Parent directories are created as needed. Paths outside the allowed directories are refused.
- ALWAYS prefer editing existing files in the codebase (Edit, MultiEdit). NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.`

func (*Write) ConcurrencySafe(json.RawMessage) bool { return false }
func (*Write) ReadOnly(json.RawMessage) bool        { return false }
func (*Write) Subject(in json.RawMessage) string    { return field(in, "file_path") }

func (w *Write) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := w.parse(input)
	if !ok {
		return bad, nil
	}
	if in.Content == nil {
		return tool.Errorf("content is required (use an empty string for an empty file)"), nil
	}
	abs, err := env.Resolve(in.FilePath)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if err := checkFresh(env, abs); err != nil {
		return tool.Errorf("%v", err), nil
	}
	original, readErr := os.ReadFile(abs)
	created := errors.Is(readErr, fs.ErrNotExist)
	if err := writeFile(env, abs, *in.Content); err != nil {
		return tool.Errorf("cannot write %s: %v", abs, unwrapPath(err)), nil
	}
	resp := writeResponse{Type: "create", FilePath: abs, Content: *in.Content, StructuredPatch: []hunk{}}
	if created {
		return tool.Result{Output: "File created successfully at: " + abs, Response: resp}, nil
	}
	orig := string(original)
	resp.Type, resp.OriginalFile, resp.StructuredPatch = "update", &orig, structuredPatch(orig, *in.Content)
	return tool.Result{Output: "The file " + abs + " has been overwritten successfully.", Response: resp}, nil
}
