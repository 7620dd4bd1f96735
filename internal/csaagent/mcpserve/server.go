// Package mcpserve is csa-agent as an MCP server (`csa-agent mcp-serve`):
// two tools, one that starts a conversation and runs its first turn and
// one that continues it, so any MCP client can use csa-agent as a
// sub-agent. It drives a thread.Host; the turn's events become progress
// notifications and log messages, calls that need permission become
// elicitations, and the client's cancel interrupts the turn.
package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/thread"
)

// Server holds the conversations open in this process.
type Server struct {
	host thread.Host
	mcp  *mcp.Server

	// stop ends every turn when the client has gone; turns counts them.
	stop  context.Context
	halt  context.CancelFunc
	turns sync.WaitGroup

	mu      sync.Mutex
	open    map[string]thread.Thread
	closed  bool
	opening sync.Mutex // one Resume at a time: a conversation opens once
}

// New makes the server over host, reporting version in its initialize
// answer.
func New(host thread.Host, version string) *Server {
	s := &Server{host: host, open: map[string]thread.Thread{}}
	s.stop, s.halt = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "csa-agent", Version: version}, &mcp.ServerOptions{
		Instructions: "csa-agent is a coding agent. Start a conversation with the csa-agent tool; continue it with csa-agent-reply and the conversation_id it returned.",
	})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: StartTool, Description: startDescription}, s.start)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ReplyTool, Description: replyDescription}, s.reply)
	return s
}

// Run serves one client on t until it goes (end of input), then stops the
// turns still running and closes every conversation.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	// The SDK waits for the calls in flight before Run returns: the end
	// of input must stop their turns first.
	err := s.mcp.Run(ctx, &watched{Transport: t, ended: s.halt})
	s.Close()
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		err = nil
	}
	return err
}

// Close interrupts the turns in progress, waits for them and closes the
// open conversations (their shells and subagents end; records stay).
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true // no turn begins after this
	s.mu.Unlock()
	s.halt()
	s.turns.Wait()
	s.mu.Lock()
	open := s.open
	s.open = map[string]thread.Thread{}
	s.mu.Unlock()
	for _, th := range open {
		th.Close()
	}
}

// begin counts a turn about to run; false when the server is closing.
func (s *Server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.turns.Add(1)
	return true
}

// keep records a new conversation as open; false when the server closed
// meanwhile (the caller closes it).
func (s *Server) keep(th thread.Thread) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.open[th.ID()] = th
	return true
}

// find returns the open conversation id, resuming a stored one.
func (s *Server) find(ctx context.Context, id string) (thread.Thread, error) {
	s.opening.Lock()
	defer s.opening.Unlock()
	s.mu.Lock()
	th := s.open[id]
	s.mu.Unlock()
	if th != nil {
		return th, nil
	}
	th, err := s.host.Resume(ctx, id, thread.Options{})
	if err != nil {
		return nil, fmt.Errorf("unknown conversation_id %q: neither open in this server nor stored (%v)", id, err)
	}
	if !s.keep(th) {
		th.Close()
		return nil, errClosing
	}
	return th, nil
}

var errClosing = errors.New("csa-agent mcp-serve is shutting down")

// watched is a transport that calls ended when its input ends.
type watched struct {
	mcp.Transport
	ended func()
}

func (w *watched) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &watchedConn{Connection: c, ended: w.ended}, nil
}

type watchedConn struct {
	mcp.Connection
	ended func()
}

func (c *watchedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err != nil {
		c.ended()
	}
	return m, err
}
