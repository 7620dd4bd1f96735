package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/testkit/devenv"
	"github.com/csa-dev/csa/internal/toolcache"
)

const acpBenchScript = `
[[rule]]
name = "bench"
contains = "bench acp prompt"
  [[rule.step]]
  text = "hi"
`

// BenchmarkACPPrompt is the ACP transport's target: from `csa run
// --transport acp --tool codex` starting to the prompt being sent to the
// real codex-acp (csa's prompt.sent event), against a minimal client
// doing the same steps (start codex-acp, initialize, session/new,
// session/set_mode). The median ratio must be at most 1.10.
func BenchmarkACPPrompt(b *testing.B) {
	acpBin, err := toolcache.Bin("codex-acp")
	if err != nil {
		b.Skip(err)
	}
	_, url := scriptedServer(b, acpBenchScript)
	w := newWorld(b, "acp", fmt.Sprintf("[tools.codex]\npath = %q\ntransport = \"acp\"\nacp_path = %q\n", agentBin, acpBin))
	env, err := devenv.Prepare(filepath.Join(benchDir, "acp", "home"), url, devenv.Options{Programs: []string{"codex-acp"}})
	if err != nil {
		b.Fatal(err)
	}
	w.env = devenv.Merge(w.env, env)
	store := storeOf(b, w)

	viaCSA := func() time.Duration {
		var out bytes.Buffer
		c := exec.Command(csaBin, "run", "--json", "--tool", "codex", "bench acp prompt")
		c.Dir, c.Env, c.Stdout, c.Stderr = w.projDir, w.env, &out, w.stderr
		t0 := time.Now()
		if err := c.Run(); err != nil {
			b.Fatalf("csa run: %v\n%s", err, out.String())
		}
		var r struct {
			SessionID string `json:"session_id"`
			Result    string `json:"result"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Result != "hi" {
			b.Fatalf("csa run: %v %s", err, out.String())
		}
		sent := promptSent(b, store.Path(r.SessionID, session.EventsFile))
		return sent.Sub(t0)
	}
	minimal := func() time.Duration {
		return minimalClient(b, acpBin, w)
	}
	ms_, cs, _ := pairs(b, minimal, viaCSA)
	m50, _ := report(b, "minimal", ms_)
	c50, _ := report(b, "csa", cs)
	ratio := float64(c50) / float64(m50)
	b.ReportMetric(ratio, "ratio")
	n := fmt.Sprintf("n=%d", len(cs))
	record("acp-minimal", "minimal ACP client to session/prompt (codex-acp)", fmt.Sprintf("p50 %.1f ms", ms(m50)), n, "info")
	record("acp-csa", "csa run --transport acp to session/prompt (codex-acp)", fmt.Sprintf("p50 %.1f ms, %.3fx the minimal client", ms(c50), ratio),
		"p50 <= 1.10x", verdict(ratio <= 1.10))
}

// promptSent reads the time of the prompt.sent event.
func promptSent(tb testing.TB, path string) time.Time {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			TS   time.Time `json:"ts"`
			Type string    `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Type == runner.EvPromptSent {
			return e.TS
		}
	}
	tb.Fatalf("no %s event in %s", runner.EvPromptSent, path)
	return time.Time{}
}

// minimalClient starts codex-acp and does the steps csa does, timing them
// up to the prompt; it then finishes the turn and ends the agent's group.
func minimalClient(tb testing.TB, bin string, w *world) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Now()
	c := exec.Command(bin)
	c.Dir, c.Env, c.Stderr = w.projDir, append(w.env[:len(w.env):len(w.env)], "PWD="+w.projDir), w.stderr
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	in, err := c.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Start(); err != nil {
		tb.Fatal(err)
	}
	defer func() {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.Wait()
	}()
	conn := sdk.NewClientSideConnection(nopClient{}, in, out)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		tb.Fatal(err)
	}
	s, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: w.projDir, McpServers: []sdk.McpServer{}})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "full-access"}); err != nil {
		tb.Fatal(err)
	}
	d := time.Since(t0)
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("bench acp prompt")}}); err != nil {
		tb.Fatal(err)
	}
	return d
}

// nopClient answers the agent's requests as little as the steps need.
type nopClient struct{}

func (nopClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, nil
}

func (nopClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, nil
}

func (nopClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}

func (nopClient) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }

func (nopClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, nil
}

func (nopClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, nil
}

func (nopClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, nil
}

func (nopClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, nil
}

func (nopClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, nil
}
