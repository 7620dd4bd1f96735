package hub

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscriptions counts a test server's resource subscriptions by URI.
type subscriptions struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *subscriptions) subscribe(_ context.Context, r *mcp.SubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n[r.Params.URI]++
	return nil
}

func (s *subscriptions) unsubscribe(_ context.Context, r *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n[r.Params.URI]--
	return nil
}

// addExtras gives a test server three resources test://NAME/rN (two to a
// page), the templates test://NAME/item/{id} and shared://{id}, the prompts
// greet and only_NAME, and tools to send a resource update (touch), count
// subscriptions (subs), link a resource (link) and add a prompt
// (addprompt).
func addExtras(s *mcp.Server, name string, subs *subscriptions) {
	read := func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text := name + ":" + r.Params.URI
		if id, ok := strings.CutPrefix(r.Params.URI, "test://"+name+"/item/"); ok {
			text = name + ":item:" + id
		}
		if id, ok := strings.CutPrefix(r.Params.URI, "shared://"); ok {
			text = name + ":shared:" + id
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: text}}}, nil
	}
	for i := 1; i <= 3; i++ {
		s.AddResource(&mcp.Resource{URI: fmt.Sprintf("test://%s/r%d", name, i), Name: fmt.Sprintf("r%d", i)}, read)
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://" + name + "/item/{id}", Name: "item"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "shared://{id}", Name: "shared"}, read)
	prompt := func(p string) mcp.PromptHandler {
		return func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: name + ":" + p + ":" + r.Params.Arguments["who"]}}}}, nil
		}
	}
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, prompt("greet"))
	s.AddPrompt(&mcp.Prompt{Name: "only_" + name}, prompt("only"))
	mcp.AddTool(s, &mcp.Tool{Name: "touch"}, func(ctx context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return text("touched"), nil, s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: a.Text})
	})
	mcp.AddTool(s, &mcp.Tool{Name: "subs"}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		subs.mu.Lock()
		defer subs.mu.Unlock()
		return text(fmt.Sprint(subs.n[a.Text])), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "link"}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "shared://z", Name: "z"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "addprompt"}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		s.AddPrompt(&mcp.Prompt{Name: a.Text}, prompt(a.Text))
		return text("added"), nil, nil
	})
}
