package tools

import (
	"context"
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Edit replaces exact text in a file.
type Edit struct{ base[editInput] }

// NewEdit is the Edit tool.
func NewEdit() *Edit {
	return &Edit{base[editInput]{"Edit", editDesc}}
}

type editInput struct {
	FilePath   string `json:"file_path" jsonschema:"The absolute path to the file to modify"`
	OldString  string `json:"old_string" jsonschema:"The text to replace"`
	NewString  string `json:"new_string" jsonschema:"The text to replace it with (must be different from old_string)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace all occurrences of old_string (default false)" jsonschema_extras:"default=false"`
}

const editDesc = `Performs exact string replacements in files.

Usage:
- You must use your Read tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file, or if the file changed since you read it (read it again).
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: spaces + line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- The edit will FAIL if old_string is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use replace_all to change every instance of old_string.
- Use replace_all for replacing and renaming strings across the file, e.g. renaming a variable.
- old_string and new_string must differ. An empty old_string creates a new file with new_string as its content.
- For several changes to one file, prefer MultiEdit.`

func (*Edit) ConcurrencySafe(json.RawMessage) bool { return false }
func (*Edit) ReadOnly(json.RawMessage) bool        { return false }
func (*Edit) Subject(in json.RawMessage) string    { return field(in, "file_path") }

func (e *Edit) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := e.parse(input)
	if !ok {
		return bad, nil
	}
	abs, before, exists, res := loadForEdit(env, in.FilePath)
	if res != nil {
		return *res, nil
	}
	after, err := edit{in.OldString, in.NewString, in.ReplaceAll}.apply(before, exists)
	if err != nil {
		return tool.Errorf("%s: %v", abs, err), nil
	}
	if err := writeFile(env, abs, after); err != nil {
		return tool.Errorf("cannot write %s: %v", abs, unwrapPath(err)), nil
	}
	resp := editResponse{FilePath: abs, OldString: in.OldString, NewString: in.NewString, OriginalFile: before,
		StructuredPatch: structuredPatch(before, after), ReplaceAll: in.ReplaceAll}
	if !exists {
		return tool.Result{Output: "File created successfully at: " + abs, Response: resp}, nil
	}
	return tool.Result{Output: "The file " + abs + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" + snippet(before, after), Response: resp}, nil
}
