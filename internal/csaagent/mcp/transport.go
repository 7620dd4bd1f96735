package mcp

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/proc"
)

// stopGrace is how long a stdio server has between SIGTERM and SIGKILL
// when the session ends (many servers ignore their stdin closing).
const stopGrace = 2 * time.Second

// transport is how to reach s, and what to undo when done with it (the
// stdio server's process).
func transport(s Server, environ []string, cwd string) (sdk.Transport, func(), *tail, error) {
	switch s.Type {
	case TypeHTTP:
		return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: withHeaders(s.Headers)}, func() {}, nil, nil
	case TypeSSE:
		return &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: withHeaders(s.Headers)}, func() {}, nil, nil
	}
	return startStdio(s, environ, cwd)
}

// startStdio starts the server's command through proc (its own process
// group, killed whole when the session ends, and with csa-agent if it
// dies) with its stdin and stdout as the connection.
func startStdio(s Server, environ []string, cwd string) (sdk.Transport, func(), *tail, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, err
	}
	env := append([]string(nil), environ...)
	for _, k := range sortedKeys(s.Env) {
		env = append(env, k+"="+s.Env[k])
	}
	dir := s.Cwd
	switch {
	case dir == "":
		dir = cwd
	case !filepath.IsAbs(dir):
		dir = filepath.Join(cwd, dir)
	}
	errs := &tail{}
	p, err := proc.Start(proc.Spec{Path: lookPath(s.Command, env), Args: s.Args, Env: env, Dir: dir,
		Stdin: inR, Stdout: outW, Stderr: errs, DieWithParent: true})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, nil, err
	}
	stop := func() {
		inW.Close()
		p.Terminate(stopGrace)
		outR.Close()
	}
	return &sdk.IOTransport{Reader: outR, Writer: inW}, stop, errs, nil
}

// lookPath finds command in the PATH the server is given (the entry's
// own PATH when it sets one).
func lookPath(command string, env []string) string {
	if strings.Contains(command, "/") {
		return command
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return command // proc.Start reports it missing
}

// withHeaders is an HTTP client sending headers with every request.
func withHeaders(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return nil
	}
	return &http.Client{Transport: headerTransport{headers, http.DefaultTransport}}
}

type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}

// tail keeps the end of a server's stderr, for the message when it fails
// to start.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = t.buf[len(t.buf)-tailMax:]
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// describeFailure adds the server's last stderr lines to err.
func describeFailure(err error, stderr *tail) error {
	if s := stderr.String(); s != "" {
		return fmt.Errorf("%w; its stderr ends: %s", err, s)
	}
	return err
}
