package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Defaults, Claude Code's: MCP_TIMEOUT and MCP_TOOL_TIMEOUT (milliseconds)
// override them for every server without its own.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 30 * time.Minute
)

// Server states, as Claude Code's init message reports them.
const (
	StatusConnected = "connected"
	StatusFailed    = "failed"
	StatusDisabled  = "disabled"
)

// Status is how a server's start went.
type Status struct {
	Name   string
	Status string
	Error  string // why it failed
	Tools  int    // tools offered (connected)
}

// Options are a Manager's world.
type Options struct {
	// Environ is what a stdio server inherits (its entry's env added).
	Environ []string
	// Cwd is where a stdio server runs unless its entry says otherwise.
	Cwd    string
	Getenv func(string) string
	// Version is csa-agent's, for the handshake.
	Version string
}

// Manager holds the session's connections to its MCP servers. Safe for
// concurrent use: the loop reads Tools while servers change their lists.
type Manager struct {
	opts     Options
	statuses []Status

	mu    sync.Mutex
	conns []*conn // connected, in configuration order
}

// Start connects to every enabled server at once and returns when each
// has connected, failed or run out of its startup time: a slow or broken
// server costs at most its timeout and leaves the others working.
func Start(servers []Server, opts Options) *Manager {
	m := &Manager{opts: opts, statuses: make([]Status, len(servers))}
	conns := make([]*conn, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		m.statuses[i] = Status{Name: s.Name, Status: StatusDisabled}
		if s.Disabled {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := m.connect(s)
			if err != nil {
				m.statuses[i] = Status{Name: s.Name, Status: StatusFailed, Error: err.Error()}
				return
			}
			conns[i] = c
			m.statuses[i] = Status{Name: s.Name, Status: StatusConnected, Tools: len(c.list())}
		}()
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			m.conns = append(m.conns, c)
		}
	}
	return m
}

// Statuses reports every configured server's start, in configuration
// order.
func (m *Manager) Statuses() []Status { return append([]Status(nil), m.statuses...) }

// Tools is every connected server's current tools.
func (m *Manager) Tools() []tool.Tool {
	m.mu.Lock()
	conns := append([]*conn(nil), m.conns...)
	m.mu.Unlock()
	var out []tool.Tool
	for _, c := range conns {
		out = append(out, c.list()...)
	}
	return out
}

// Close ends every connection and every stdio server process, at once.
func (m *Manager) Close() {
	m.mu.Lock()
	conns := m.conns
	m.conns = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
}

// timeouts are s's, else the environment's, else the defaults.
func (m *Manager) timeouts(s Server) (startup, call time.Duration) {
	startup, call = s.StartupTimeout, s.ToolTimeout
	if startup <= 0 {
		startup = envMillis(m.opts.Getenv, "MCP_TIMEOUT", DefaultStartupTimeout)
	}
	if call <= 0 {
		call = envMillis(m.opts.Getenv, "MCP_TOOL_TIMEOUT", DefaultToolTimeout)
	}
	return startup, call
}

func envMillis(getenv func(string) string, key string, def time.Duration) time.Duration {
	if getenv == nil {
		return def
	}
	if ms, err := strconv.ParseFloat(getenv(key), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return def
}

// connect starts s (its process, for stdio), makes the handshake and
// lists its tools, all within its startup timeout. The connection lives
// on a context of its own: an SSE stream is bound to the context it was
// opened with.
func (m *Manager) connect(s Server) (*conn, error) {
	if s.Problem != "" {
		return nil, errors.New(s.Problem)
	}
	startup, callTimeout := m.timeouts(s)
	environ := m.opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	t, stop, stderr, err := transport(s, environ, m.opts.Cwd)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(startup, cancel)
	c := &conn{server: s, callTimeout: callTimeout, stopProc: stop, cancel: cancel, refresh: make(chan struct{}, 1)}
	client := sdk.NewClient(&sdk.Implementation{Name: "csa-agent", Version: m.opts.Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { c.changed() },
	})
	fail := func(err error) (*conn, error) {
		timer.Stop()
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %v (its startup timeout)", startup)
		}
		cancel()
		if c.session != nil {
			c.session.Close()
		}
		stop()
		return nil, describeFailure(err, stderr)
	}
	if c.session, err = client.Connect(ctx, t, nil); err != nil {
		return fail(err)
	}
	tools, err := c.fetch(ctx)
	if err != nil {
		return fail(fmt.Errorf("tools/list: %w", err))
	}
	if !timer.Stop() {
		return fail(ctx.Err())
	}
	c.set(tools)
	go c.refreshLoop(ctx)
	return c, nil
}
