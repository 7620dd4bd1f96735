package runner

import (
	"io"
	"os"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/session"
)

// The session files a supervisor reads and writes besides the state.

// stderrTail is the end of the program's stderr, which usually says why
// it failed.
func (s *Supervisor) stderrTail(id string) string {
	f, err := os.Open(s.Store.Path(id, session.StderrFile))
	if err != nil {
		return ""
	}
	defer f.Close()
	const n = 4096
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		f.Seek(fi.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return strings.TrimSpace(strings.ToValidUTF8(string(b), "?"))
}

// stderrHead is the start of the program's stderr: a crash report (a Go
// or node out-of-memory trace) names its cause first.
func (s *Supervisor) stderrHead(id string) string {
	f, err := os.Open(s.Store.Path(id, session.StderrFile))
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, _ := io.ReadFull(f, b)
	return strings.ToValidUTF8(string(b[:n]), "?")
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// showText writes assistant text for a person: whole messages on their own
// lines, streamed fragments as they come.
func showText(w io.Writer, t agents.Text) {
	io.WriteString(w, t.Text)
	if !t.Delta && !strings.HasSuffix(t.Text, "\n") {
		io.WriteString(w, "\n")
	}
}

// killRequested is the request `csa kill` left for the session, or nil.
func (s *Supervisor) killRequested(id string) *killRequest {
	b, err := os.ReadFile(s.Store.Path(id, session.KillRequest))
	if err != nil {
		return nil
	}
	return parseKillRequest(b)
}

func (s *Supervisor) openLogs(id string) (out *os.File, errf *lazyFile, err error) {
	out, err = os.OpenFile(s.Store.Path(id, session.OutputFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return out, &lazyFile{path: s.Store.Path(id, session.StderrFile)}, nil
}

// lazyFile is created on its first write: most programs print nothing on
// stderr, and every file created costs a run time.
type lazyFile struct {
	path string
	f    *os.File
	err  error
}

func (l *lazyFile) Write(b []byte) (int, error) {
	if l.f == nil && l.err == nil {
		l.f, l.err = os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	if l.err != nil {
		return 0, l.err
	}
	return l.f.Write(b)
}

func (l *lazyFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// stdinReader avoids handing exec a typed nil, which it would treat as a
// reader to copy from.
func stdinReader(f *os.File) io.Reader {
	if f == nil {
		return nil
	}
	return f
}
