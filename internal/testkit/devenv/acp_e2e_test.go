package devenv_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The ACP agents against the model server, through a minimal JSON-RPC
// client: claude-code-acp writes files through the client (fs/write_text_file),
// codex-acp through its shell tool. codex-acp's "auto" mode sandboxes
// commands with bubblewrap, which this machine lacks, so it runs in
// "full-access".
func TestRealACPAgents(t *testing.T) {
	for _, name := range []string{"claude-code-acp", "codex-acp"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := agentBin(t, name)
			r := newRig(t, program{name: name})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			c := startACP(ctx, t, bin, r)
			c.call(t, "initialize", map[string]any{"protocolVersion": 1,
				"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}})
			var sess struct {
				SessionID string `json:"sessionId"`
			}
			c.decode(t, c.call(t, "session/new", map[string]any{"cwd": r.work, "mcpServers": []any{}}), &sess)
			if name == "codex-acp" {
				c.call(t, "session/set_mode", map[string]any{"sessionId": sess.SessionID, "modeId": "full-access"})
			}
			var res struct {
				StopReason string `json:"stopReason"`
			}
			c.decode(t, c.call(t, "session/prompt", map[string]any{"sessionId": sess.SessionID,
				"prompt": []any{map[string]any{"type": "text", "text": "e2e write a file"}}}), &res)
			t.Logf("%s wrote a file in %v", name, time.Since(start).Round(time.Millisecond))
			got, err := os.ReadFile(filepath.Join(r.work, "written.txt"))
			if res.StopReason != "end_turn" || string(got) != "written by the agent\n" {
				t.Errorf("stop %q, written.txt = %q, %v; updates:\n%s", res.StopReason, got, err, strings.Join(c.updates, "\n"))
			}
			for _, rec := range r.srv.Requests() {
				if !rec.Matched || rec.Problem != "" {
					t.Errorf("request not answered as scripted: %+v", rec)
				}
			}
		})
	}
}

type acpClient struct {
	in      io.WriteCloser
	out     *bufio.Scanner
	id      int
	updates []string
}

func startACP(ctx context.Context, t *testing.T, bin string, r *rig) *acpClient {
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir, cmd.Env = r.work, append(r.env, "PWD="+r.work)
	// Neither agent exits on stdin EOF, and the codex-acp wrapper does not
	// forward signals: kill the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	return &acpClient{in: in, out: sc}
}

type rpcMessage struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *acpClient) send(t *testing.T, v any) {
	data, _ := json.Marshal(v)
	if _, err := c.in.Write(append(data, '\n')); err != nil {
		t.Fatal(err)
	}
}

// call sends a request and serves the agent's own requests until the answer.
func (c *acpClient) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	c.id++
	c.send(t, map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	want := fmt.Sprint(c.id)
	for c.out.Scan() {
		var m rpcMessage
		if err := json.Unmarshal(c.out.Bytes(), &m); err != nil {
			continue
		}
		switch {
		case m.Method != "" && m.ID != nil:
			c.serve(t, m)
		case m.Method != "":
			c.updates = append(c.updates, string(m.Params))
		case m.ID != nil && string(*m.ID) == want:
			if m.Error != nil {
				t.Fatalf("%s: %s", method, m.Error.Message)
			}
			return m.Result
		}
	}
	t.Fatalf("%s: agent closed its output: %v", method, c.out.Err())
	return nil
}

func (c *acpClient) serve(t *testing.T, m rpcMessage) {
	var result any
	switch m.Method {
	case "session/request_permission":
		var p struct {
			Options []struct{ OptionID, Kind string } `json:"options"`
		}
		_ = json.Unmarshal(m.Params, &p)
		pick := ""
		for _, o := range p.Options {
			if strings.HasPrefix(o.Kind, "allow") && pick == "" {
				pick = o.OptionID
			}
		}
		result = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": pick}}
	case "fs/write_text_file":
		var p struct{ Path, Content string }
		_ = json.Unmarshal(m.Params, &p)
		if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
			t.Error(err)
		}
	case "fs/read_text_file":
		var p struct{ Path string }
		_ = json.Unmarshal(m.Params, &p)
		data, _ := os.ReadFile(p.Path)
		result = map[string]any{"content": string(data)}
	default:
		c.send(t, map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not supported"}})
		return
	}
	c.send(t, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

func (c *acpClient) decode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}
