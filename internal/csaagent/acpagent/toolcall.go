package acpagent

import (
	"encoding/json"
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"
)

// call is how a tool call is shown to the client.
type call struct {
	title     string
	kind      acp.ToolKind
	locations []acp.ToolCallLocation
	input     any // the call's arguments, decoded (rawInput)
}

// kinds are ACP's tool kinds of csa-agent's tools; others are "other".
var kinds = map[string]acp.ToolKind{
	"Read": acp.ToolKindRead, "LS": acp.ToolKindRead,
	"Edit": acp.ToolKindEdit, "MultiEdit": acp.ToolKindEdit, "Write": acp.ToolKindEdit, "NotebookEdit": acp.ToolKindEdit,
	"Bash": acp.ToolKindExecute, "BashOutput": acp.ToolKindExecute, "KillShell": acp.ToolKindExecute,
	"Grep": acp.ToolKindSearch, "Glob": acp.ToolKindSearch,
	"WebFetch":  acp.ToolKindFetch,
	"TodoWrite": acp.ToolKindThink, "EnterPlanMode": acp.ToolKindThink, "ExitPlanMode": acp.ToolKindThink,
}

// toolCall describes a call of tool name with input; relative paths are
// the working directory's.
func toolCall(cwd, name string, input json.RawMessage) call {
	var in struct {
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
		Command  string `json:"command"`
		Pattern  string `json:"pattern"`
		URL      string `json:"url"`
	}
	c := call{title: name, kind: acp.ToolKindOther}
	if k, ok := kinds[name]; ok {
		c.kind = k
	}
	var raw any
	if json.Unmarshal(input, &raw) == nil {
		c.input = raw
	}
	if json.Unmarshal(input, &in) != nil {
		return c
	}
	path := in.FilePath
	if path == "" {
		path = in.Path
	}
	if path != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		c.locations = []acp.ToolCallLocation{{Path: path}}
	}
	switch {
	case in.Command != "":
		c.title = in.Command
	case in.Pattern != "" && path != "":
		c.title = name + " " + in.Pattern + " in " + path
	case in.Pattern != "":
		c.title = name + " " + in.Pattern
	case in.URL != "":
		c.title = name + " " + in.URL
	case path != "":
		c.title = name + " " + path
	}
	return c
}
