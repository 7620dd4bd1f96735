package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer is a small MCP server for the hub's tests, where which server
// a client reaches is the point rather than what it does: this test binary
// run with CSAMCP_TEST_SERVER=NAME. Its one tool, NAME_whoami, answers
// "NAME PID".
func testServer(name string) int {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-" + name, Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: name + "_whoami", Description: "who answers"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s %d", name, os.Getpid())}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		return 1
	}
	return 0
}
