package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// maxOutput bounds what one call gives the model (Claude Code caps MCP
// output too): a server returning megabytes would fill the context.
const maxOutput = 100_000

// resultOf is what the model sees of a call: the text parts joined, the
// others described (the loop's results are text), the structured content
// when there is nothing else, and the server's isError.
func resultOf(res *sdk.CallToolResult) tool.Result {
	var parts []string
	for _, c := range res.Content {
		if s := describe(c); s != "" {
			parts = append(parts, s)
		}
	}
	out := strings.Join(parts, "\n")
	if out == "" && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out = string(b)
		}
	}
	if out == "" {
		out = "(no content)"
	}
	if len(out) > maxOutput {
		out = out[:maxOutput] + fmt.Sprintf("\n... (output cut at %d of %d characters)", maxOutput, len(out))
	}
	return tool.Result{Output: out, IsError: res.IsError}
}

func describe(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.ResourceLink:
		s := fmt.Sprintf("[resource link: %s <%s>", c.Name, c.URI)
		if c.Description != "" {
			s += ": " + c.Description
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return ""
		}
		if r.Text != "" {
			return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
		}
		return fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
	}
	return ""
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}
