package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// tapEnv names the log of a tap: the test binary run as a pass-through
// between the hub and a real MCP server (os.Args[1:]), so a test sees what
// the server itself was sent and answered, in order.
const tapEnv = "CSA_MCP_TEST_TAP"

// tapEvent is one line of a tap's log: a request or notification going in
// (">") or a response coming out ("<").
type tapEvent struct {
	Dir    string          `json:"dir"`
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// tapMain is the tap. The log never shows fewer calls in flight at the
// server than there were.
func tapMain(logPath string) int {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 1
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err1 := cmd.StdinPipe()
	out, err2 := cmd.StdoutPipe()
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "tap:", err1, err2)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 1
	}
	var mu sync.Mutex
	logLine := func(dir string, line []byte) {
		var e tapEvent
		if json.Unmarshal(line, &e) != nil || (dir == "<" && (e.Method != "" || len(e.ID) == 0)) {
			return // only the client side's messages and the server's responses
		}
		e.Dir = dir
		b, _ := json.Marshal(e)
		mu.Lock()
		f.Write(append(b, '\n'))
		mu.Unlock()
	}
	// Each line is logged before it is passed on: a request before the
	// server can read it, a response before the hub can see it.
	pass := func(r io.Reader, w io.Writer, dir string) {
		br := bufio.NewReaderSize(r, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				logLine(dir, line)
				w.Write(line)
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		pass(os.Stdin, in, ">")
		in.Close()
	}()
	pass(out, os.Stdout, "<")
	cmd.Wait()
	return cmd.ProcessState.ExitCode()
}

// readTap reads a tap's log.
func readTap(t *testing.T, path string) []tapEvent {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []tapEvent
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var e tapEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("tap log %q: %v", line, err)
		}
		evs = append(evs, e)
	}
	return evs
}

// maxToolCallsInFlight is the most tools/call requests the server had
// received and not yet answered at any point of the log.
func maxToolCallsInFlight(evs []tapEvent) (most, total int) {
	open := map[string]bool{}
	for _, e := range evs {
		switch {
		case e.Dir == ">" && e.Method == "tools/call":
			open[string(e.ID)] = true
			total++
		case e.Dir == "<" && open[string(e.ID)]:
			delete(open, string(e.ID))
		}
		most = max(most, len(open))
	}
	return most, total
}
