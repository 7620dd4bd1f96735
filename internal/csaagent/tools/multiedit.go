package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// MultiEdit applies several exact replacements to one file, all or none.
type MultiEdit struct{ base[multiEditInput] }

// NewMultiEdit is the MultiEdit tool.
func NewMultiEdit() *MultiEdit {
	return &MultiEdit{base[multiEditInput]{"MultiEdit", multiEditDesc}}
}

type multiEditInput struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to modify"`
	Edits    []edit `json:"edits" jsonschema:"Array of edit operations to perform sequentially on the file" jsonschema_extras:"minItems=1"`
}

const multiEditDesc = `This is a tool for making multiple edits to a single file in one operation. It is built on top of the Edit tool and allows you to perform multiple find-and-replace operations efficiently. Prefer this tool over the Edit tool when you need to make multiple edits to the same file.

Before using this tool, use the Read tool to understand the file's contents and context (it fails on a file not read, or changed since).

- file_path: the absolute path to the file to modify.
- edits: an array of edit operations, each with old_string, new_string and optional replace_all — exactly as for Edit.

IMPORTANT:
- All edits are applied in sequence, in the order they are provided; each edit operates on the result of the previous edit.
- All edits must be valid for the operation to succeed: if any edit fails, none will be applied, and the error names the failing edit.
- Plan your edits so an earlier edit does not change the text a later one is looking for.
- Each old_string must match the file exactly (including whitespace) and be unique unless replace_all is set; old_string and new_string must differ.
- To create a new file: use a new file path, and give an empty old_string with the contents as new_string in the first edit.`

func (*MultiEdit) ConcurrencySafe(json.RawMessage) bool { return false }
func (*MultiEdit) ReadOnly(json.RawMessage) bool        { return false }
func (*MultiEdit) Subject(in json.RawMessage) string    { return field(in, "file_path") }

func (m *MultiEdit) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := m.parse(input)
	if !ok {
		return bad, nil
	}
	if len(in.Edits) == 0 {
		return tool.Errorf("edits is empty: give at least one edit"), nil
	}
	abs, before, exists, res := loadForEdit(env, in.FilePath)
	if res != nil {
		return *res, nil
	}
	// Edits apply to a copy; the file is written once, only if all succeed.
	after := before
	for i, e := range in.Edits {
		var err error
		if after, err = e.apply(after, exists || i > 0); err != nil {
			return tool.Errorf("%s: edit %d of %d failed, no edits were applied: %v", abs, i+1, len(in.Edits), err), nil
		}
	}
	if err := writeFile(env, abs, after); err != nil {
		return tool.Errorf("cannot write %s: %v", abs, unwrapPath(err)), nil
	}
	verb := "updated"
	if !exists {
		verb = "created"
	}
	return tool.Result{Output: fmt.Sprintf("Applied %s to %s (%s). Snippet of the first change:\n%s", plural(len(in.Edits), "edit"), abs, verb, snippet(before, after))}, nil
}
