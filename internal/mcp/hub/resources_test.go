package hub

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func extrasServer(t *testing.T, name string) ServerConfig {
	return server(t, "MCPHUB_NAME="+name, "MCPHUB_TOOLS=echo", "MCPHUB_EXTRAS=1")
}

func readText(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %+v", uri, res.Contents)
	}
	return res.Contents[0].Text
}

// Resources and prompts of two servers through the hub: capabilities only
// where a server has them; resource pages never mix servers; reads routed
// by listing, tool results and templates; prompts renamed only on a
// collision; subscriptions shared and updates fanned out; prompts'
// list_changed passed on.
func TestResourcesAndPrompts(t *testing.T) {
	ctx := context.Background()
	_, socket := startHub(t, map[string]ServerConfig{
		"alpha": extrasServer(t, "alpha"),
		"beta":  extrasServer(t, "beta"),
		"gamma": server(t, "MCPHUB_NAME=gamma", "MCPHUB_TOOLS=echo"),
	})
	updated := make(chan string, 8)
	promptsChanged := make(chan struct{}, 8)
	cs := connect(t, socket, Hello{}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			updated <- "a:" + r.Params.URI
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { promptsChanged <- struct{}{} },
	})
	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged || caps.Prompts == nil {
		t.Fatalf("capabilities with resources and prompts: %+v", caps)
	}
	plain := connect(t, socket, Hello{Only: []string{"gamma"}}, nil)
	if c := plain.InitializeResult().Capabilities; c.Resources != nil || c.Prompts != nil || c.Tools == nil {
		t.Fatalf("capabilities of a tools-only server: %+v", c)
	}

	// Pages: each from one server, all six resources in order.
	var uris []string
	pages := 0
	for cursor := ""; ; pages++ {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		server := ""
		for _, r := range res.Resources {
			s := strings.Split(strings.TrimPrefix(r.URI, "test://"), "/")[0]
			if server != "" && s != server {
				t.Fatalf("page %d mixes servers: %v", pages, res.Resources)
			}
			server = s
			uris = append(uris, r.URI)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	want := []string{"test://alpha/r1", "test://alpha/r2", "test://alpha/r3", "test://beta/r1", "test://beta/r2", "test://beta/r3"}
	if !slices.Equal(uris, want) || pages != 3 {
		t.Fatalf("resources %q in %d pages, want %q in 4", uris, pages+1, want)
	}
	if _, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "bogus"}); err == nil {
		t.Fatal("a bogus cursor was accepted")
	}
	var templates []string
	for cursor := ""; ; {
		res, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, rt := range res.ResourceTemplates {
			templates = append(templates, rt.URITemplate)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if len(templates) != 4 || !slices.Contains(templates, "test://beta/item/{id}") {
		t.Fatalf("templates %q", templates)
	}

	// Reads go to the server that listed the URI, or whose template
	// matches it, or that named it in a tool result.
	if got := readText(t, cs, "test://beta/r2"); got != "beta:test://beta/r2" {
		t.Fatalf("read = %q", got)
	}
	if got := readText(t, cs, "test://beta/item/7"); got != "beta:item:7" {
		t.Fatalf("read through a template = %q", got)
	}
	if got := readText(t, cs, "shared://q"); got != "alpha:shared:q" {
		t.Fatalf("read through the first matching template = %q", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "beta__link"})
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("beta__link: %v %+v", err, res)
	}
	if got := readText(t, cs, "shared://z"); got != "beta:shared:z" {
		t.Fatalf("read of a linked resource = %q, want beta's", got)
	}

	// Prompts: greet is on both servers, so prefixed; the rest kept.
	pl, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, p := range pl.Prompts {
		prompts = append(prompts, p.Name)
	}
	slices.Sort(prompts)
	if !slices.Equal(prompts, []string{"alpha__greet", "beta__greet", "only_alpha", "only_beta"}) {
		t.Fatalf("prompts %q", prompts)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "beta__greet", Arguments: map[string]string{"who": "ann"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := gp.Messages[0].Content.(*mcp.TextContent).Text; got != "beta:greet:ann" {
		t.Fatalf("beta__greet = %q", got)
	}
	mustCall(t, cs, "alpha__addprompt", args{Text: "later"})
	select {
	case <-promptsChanged:
	case <-time.After(30 * time.Second):
		t.Fatal("no prompts/list_changed")
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "later"}); err != nil {
		t.Fatalf("the new prompt: %v", err)
	}

	// Subscriptions: two clients, one subscription upstream; both told.
	other := make(chan string, 8)
	cs2 := connect(t, socket, Hello{}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			other <- "b:" + r.Params.URI
		},
	})
	const uri = "test://alpha/r1"
	cs2.ListResources(ctx, nil) // routes test://alpha/r1 for cs2
	for _, c := range []*mcp.ClientSession{cs, cs2} {
		if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	if n := mustCall(t, cs, "alpha__subs", args{Text: uri}); n != "1" {
		t.Fatalf("subscriptions upstream: %s, want 1", n)
	}
	mustCall(t, cs, "alpha__touch", args{Text: uri})
	for _, ch := range []chan string{updated, other} {
		select {
		case got := <-ch:
			if !strings.HasSuffix(got, uri) {
				t.Fatalf("update %q", got)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a subscriber was not told of the update")
		}
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if n := mustCall(t, cs, "alpha__subs", args{Text: uri}); n != "1" {
		t.Fatalf("subscriptions upstream with one subscriber left: %s", n)
	}
	cs2.Close() // leaving drops its subscription
	waitFor(t, "the last subscription dropped upstream", func() bool {
		return mustCall(t, cs, "alpha__subs", args{Text: uri}) == "0"
	})
}
