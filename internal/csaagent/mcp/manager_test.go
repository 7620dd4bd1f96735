package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// testServer is an in-process go-sdk MCP server with one tool, add, that
// answers with text, an image, structured content or an error.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "add", Description: "adds a and b", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ A, B float64 }
			json.Unmarshal(req.Params.Arguments, &in)
			switch {
			case in.A < 0:
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "negative"}}}, nil
			case in.A == 7:
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a picture:"},
					&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")}}}, nil
			case in.A == 8:
				return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]float64{"sum": in.A + in.B}}, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "sum"},
				&sdk.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil
		})
	return s
}

func call(t *testing.T, tl tool.Tool, input string) tool.Result {
	t.Helper()
	res, err := tl.Run(context.Background(), nil, json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s: %v", tl.Name(), err)
	}
	return res
}

func byName(tools []tool.Tool, name string) tool.Tool {
	for _, t := range tools {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

// Both HTTP transports reach a real go-sdk server: the tool is offered
// as mcp__SERVER__TOOL with its description, schema and read-only hint,
// headers reach the server, and results come back as the model sees them.
func TestHTTPTransports(t *testing.T) {
	srv := testServer()
	var auth atomic.Value
	auth.Store("")
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a := r.Header.Get("Authorization"); a != "" {
				auth.Store(a)
			}
			h.ServeHTTP(w, r)
		})
	}
	get := func(*http.Request) *sdk.Server { return srv }
	streamable := httptest.NewServer(record(sdk.NewStreamableHTTPHandler(get, nil)))
	defer streamable.Close()
	sse := httptest.NewServer(record(sdk.NewSSEHandler(get, nil)))
	defer sse.Close()

	m := Start([]Server{
		{Name: "web", Type: TypeHTTP, URL: streamable.URL, Headers: map[string]string{"Authorization": "Bearer xyz"}},
		{Name: "old web", Type: TypeSSE, URL: sse.URL},
	}, Options{})
	defer m.Close()
	for _, st := range m.Statuses() {
		if st.Status != StatusConnected || st.Tools != 1 {
			t.Fatalf("statuses %+v", m.Statuses())
		}
	}
	if a := auth.Load().(string); a != "Bearer xyz" {
		t.Fatalf("the server saw Authorization %q", a)
	}
	for _, name := range []string{"mcp__web__add", "mcp__old_web__add"} {
		add := byName(m.Tools(), name)
		if add == nil {
			t.Fatalf("no %s in %v", name, m.Tools())
		}
		if add.Description() != "adds a and b" || !strings.Contains(string(add.Schema()), `"b":{"type":"number"}`) ||
			!add.ReadOnly(nil) || !add.ConcurrencySafe(nil) {
			t.Fatalf("%s: %q %s", name, add.Description(), add.Schema())
		}
		for input, want := range map[string]tool.Result{
			`{"a":2,"b":3}`:  {Output: "sum\n5"},
			`{"a":-1,"b":3}`: {Output: "negative", IsError: true},
			`{"a":7,"b":0}`:  {Output: "a picture:\n[image: image/png, 5 bytes]"},
			`{"a":8,"b":1}`:  {Output: `{"sum":9}`},
		} {
			if got := call(t, add, input); got != want {
				t.Errorf("%s %s: %+v, want %+v", name, input, got, want)
			}
		}
	}
}

// A server that adds a tool and says so (notifications/tools/list_changed)
// has the new list offered; one that removes a tool has it gone.
func TestToolListChanged(t *testing.T) {
	srv := testServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	m := Start([]Server{{Name: "s", Type: TypeHTTP, URL: hs.URL}}, Options{})
	defer m.Close()
	names := func() []string {
		var out []string
		for _, t := range m.Tools() {
			out = append(out, t.Name())
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"mcp__s__add"}) {
		t.Fatalf("tools %q", got)
	}
	srv.AddTool(&sdk.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late answer"}}}, nil
		})
	waitFor(t, "the added tool", func() bool { return slices.Contains(names(), "mcp__s__late") })
	if got := call(t, byName(m.Tools(), "mcp__s__late"), `{}`); got.Output != "late answer" {
		t.Fatalf("late: %+v", got)
	}
	srv.RemoveTools("add")
	waitFor(t, "the removed tool gone", func() bool { return slices.Equal(names(), []string{"mcp__s__late"}) })
}

// waitFor polls cond (a list_changed is debounced, then listed again)
// for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a minute", what)
		}
	}
}

// A call that outlasts its timeout, or to a server that has gone, is a
// failed result for the model, not an error of the run.
func TestCallFailuresAreResults(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	release := make(chan struct{})
	srv.AddTool(&sdk.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "waited"}}}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	m := Start([]Server{{Name: "slow", Type: TypeHTTP, URL: hs.URL, ToolTimeout: 200 * time.Millisecond}}, Options{})
	defer m.Close()
	defer close(release) // first: the server's handler still waits
	res := call(t, byName(m.Tools(), "mcp__slow__wait"), `{}`)
	if !res.IsError || !strings.Contains(res.Output, "did not answer within 200ms") {
		t.Fatalf("timed out call: %+v", res)
	}
}
