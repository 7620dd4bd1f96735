package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// conn is one connected server and its cached tool list.
type conn struct {
	server      Server
	session     *sdk.ClientSession
	callTimeout time.Duration
	stopProc    func()             // ends a stdio server's process group
	cancel      context.CancelFunc // ends the connection's context
	refresh     chan struct{}      // a list_changed to act on (one is enough)

	mu    sync.Mutex
	tools []tool.Tool
}

func (c *conn) list() []tool.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools
}

func (c *conn) set(tools []tool.Tool) {
	c.mu.Lock()
	c.tools = tools
	c.mu.Unlock()
}

// fetch lists the server's tools (every page) as tools of the loop. A
// server without the tools capability has none.
func (c *conn) fetch(ctx context.Context) ([]tool.Tool, error) {
	if res := c.session.InitializeResult(); res != nil && res.Capabilities != nil && res.Capabilities.Tools == nil {
		return nil, nil
	}
	var out []tool.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if mt, ok := newTool(c, t); ok {
			out = append(out, mt)
		}
	}
	return out, nil
}

// changed is the server's notifications/tools/list_changed. It only
// signals: listing from inside the notification handler would wait on
// the connection that is delivering it.
func (c *conn) changed() {
	select {
	case c.refresh <- struct{}{}:
	default: // a refresh is already due: it will see this change too
	}
}

// refreshLoop lists the tools again after each change until the
// connection ends; the loop sees the new list on its next request. A
// failed listing keeps the old list.
func (c *conn) refreshLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.refresh:
		}
		lctx, cancel := context.WithTimeout(ctx, c.callTimeout)
		tools, err := c.fetch(lctx)
		cancel()
		if err == nil {
			c.set(tools)
		}
	}
}

func (c *conn) close() {
	c.cancel()
	c.session.Close()
	c.stopProc()
}
