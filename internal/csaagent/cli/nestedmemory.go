package cli

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/prompt"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// memoryOnRead is the session's hooks plus the nested memory: after a
// Read, the rules scoped to the file read and the memory files of the
// folders down to it go to the model beside the result, as Claude Code
// attaches them.
type memoryOnRead struct {
	loop.Hooks
	memory *prompt.NestedMemory
	cwd    string
}

func (h memoryOnRead) AfterTool(ctx context.Context, c loop.Call, res tool.Result) loop.Aftermath {
	after := h.Hooks.AfterTool(ctx, c, res)
	if c.Tool.Name() != "Read" || res.IsError {
		return after
	}
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(c.Input, &in) != nil || in.FilePath == "" {
		return after
	}
	path := in.FilePath
	if !filepath.IsAbs(path) {
		path = filepath.Join(h.cwd, path)
	}
	if more := h.memory.For(path); more != "" {
		if after.Context != "" {
			after.Context += "\n\n"
		}
		after.Context += more
	}
	return after
}
