package mcp

import (
	"regexp"
	"strings"
)

// Prefix starts the name of every MCP tool: mcp__SERVER__TOOL.
const Prefix = "mcp__"

// maxToolName is the longest tool name the model APIs accept (Anthropic's
// and OpenAI's limit): a longer one would fail every request.
const maxToolName = 64

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// normalize makes a server or tool name fit in a tool name, as Claude Code
// does: every character outside [a-zA-Z0-9_-] becomes an underscore.
func normalize(name string) string { return unsafeChars.ReplaceAllString(name, "_") }

// ToolName is what the model calls tool of server: mcp__SERVER__TOOL.
func ToolName(server, tool string) string {
	return Prefix + normalize(server) + "__" + normalize(tool)
}

// ServerOf is the (normalised) server part of an MCP tool name, "" for
// another tool.
func ServerOf(name string) string {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return ""
	}
	server, _, _ := strings.Cut(rest, "__")
	return server
}
