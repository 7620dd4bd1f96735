package hub

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/proc"
)

// testBackend is the MCP server the tests put behind the hub: this test
// binary run again with MCPHUB_BACKEND set. MCPHUB_NAME prefixes echo's
// answers; MCPHUB_TOOLS (comma-separated) limits the tools it has.
func testBackend() {
	s := testServer(os.Getenv("MCPHUB_NAME"), os.Getenv("MCPHUB_TOOLS"), os.Getenv("MCPHUB_EXTRAS") != "")
	if err := s.Run(context.Background(), &mcp.StdioTransport{MaxLineLength: -1}); err != nil {
		fmt.Fprintln(os.Stderr, "test backend:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// testServer is the test MCP server: echo answers prefixed with name,
// only the tools named in tools (comma-separated) if any; extras adds
// resources, templates, prompts and subscriptions (extras_test.go).
func testServer(name, tools string, extras bool) *mcp.Server {
	only := strings.Split(tools, ",")
	var opts *mcp.ServerOptions
	subs := &subscriptions{n: map[string]int{}}
	if extras {
		opts = &mcp.ServerOptions{PageSize: 2, SubscribeHandler: subs.subscribe, UnsubscribeHandler: subs.unsubscribe}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "test-" + name, Version: "1"}, opts)
	if extras {
		addExtras(s, name, subs)
	}
	add := func(tool string, desc string, h mcp.ToolHandlerFor[args, any]) {
		if tools == "" || slices.Contains(only, tool) {
			mcp.AddTool(s, &mcp.Tool{Name: tool, Description: desc}, h)
		}
	}
	var mu sync.Mutex
	counter, seq := 0, 0
	add("echo", "returns text", func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		if name != "" {
			return text(name + ":" + a.Text), nil, nil
		}
		return text(a.Text), nil, nil
	})
	add("pid", "returns the pid and cwd", func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		wd, _ := os.Getwd()
		return text(fmt.Sprintf("%d %s", os.Getpid(), wd)), nil, nil
	})
	add("counter", "counts its calls", func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		counter++
		return text(fmt.Sprint(counter)), nil, nil
	})
	add("seq", "returns the order calls arrive in", func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		seq++
		return text(fmt.Sprintf("%s@%d", a.Text, seq)), nil, nil
	})
	add("slow", "reports progress, then blocks until the file exists", func(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Message: "started"})
		}
		for {
			if _, err := os.Stat(a.File); err == nil {
				return text("released"), nil, nil
			}
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(5 * time.Millisecond): // the backend polls; tests do not
			}
		}
	})
	add("hog", "allocates memory until it is stopped", func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		// Pages are touched to count against a cgroup; an address-space
		// limit stops the allocation itself (MCPHUB_HOG_VIRTUAL), with no
		// need to use real memory.
		touch := os.Getenv("MCPHUB_HOG_VIRTUAL") == ""
		var keep [][]byte
		for range 8 << 10 { // up to 8 GiB, a MiB at a time
			b := make([]byte, 1<<20)
			for i := 0; touch && i < len(b); i += 4096 {
				b[i] = 1
			}
			keep = append(keep, b)
		}
		return text(fmt.Sprint(len(keep))), nil, nil
	})
	add("spawn", "starts 100 sleeping processes in a shell", func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		var out bytes.Buffer
		p, err := proc.Start(proc.Spec{Path: "/bin/sh", Args: []string{"-c", `i=0; while [ $i -lt 100 ]; do sleep 60 >/dev/null 2>&1 & i=$((i+1)); done; echo started $i`},
			Stdout: &out, Stderr: &out})
		if err != nil {
			return text("start: " + err.Error()), nil, nil
		}
		st := p.Wait()
		_ = p.Signal(syscall.SIGKILL) // the sleeps
		return text(fmt.Sprintf("exit %d: %s", st.ExitCode(), strings.TrimSpace(out.String()))), nil, nil
	})
	add("crash", "exits mid-call", func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	add("addtool", "adds a tool named text", func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(s, &mcp.Tool{Name: a.Text}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
			return text("new"), nil, nil
		})
		return text("added"), nil, nil
	})
	if tools != "" {
		for _, t := range only {
			if !slices.Contains([]string{"echo", "pid", "counter", "seq", "slow", "crash", "addtool", "hog", "spawn"}, t) {
				mcp.AddTool(s, &mcp.Tool{Name: t}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
					return text(name + ":" + t), nil, nil
				})
			}
		}
	}
	return s
}

type args struct {
	Text string `json:"text,omitempty"`
	File string `json:"file,omitempty"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
