// Package devserver is `csa cluster dev`: one NATS server with JetStream,
// embedded in csa-cluster as a library, to try remote runs on one machine.
package devserver

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Dir is where the dev server keeps its JetStream state, under csa's
// state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, "cluster-dev") }

// Server is a running dev server.
type Server struct {
	s *server.Server
}

// Start starts a server on 127.0.0.1:port (0 for any free port) with its
// JetStream store in dir, and waits until it accepts clients.
func Start(dir string, port int) (*Server, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cluster dev: %w", err)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{
		ServerName: "csa-dev", Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir,
		NoSigs: true, NoLog: true,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster dev: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("cluster dev: the server did not accept connections within 10s (port %d taken?)", port)
	}
	return &Server{s: s}, nil
}

// URL is where clients connect.
func (s *Server) URL() string { return s.s.ClientURL() }

// Stop shuts the server down and waits for it.
func (s *Server) Stop() {
	s.s.Shutdown()
	s.s.WaitForShutdown()
}
