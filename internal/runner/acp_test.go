package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	ossignal "os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/session"
)

// The test binary doubles as the programs the ACP tests supervise
// (CSA_FAKE_ACP=mode), so the supervisor runs a real process group. With
// no arguments it is a fake ACP agent: one that answers, one that fails to
// initialize (fallback to the CLI), one that dies mid-turn (no fallback),
// one that hangs until cancelled and ignores SIGTERM. With a CLI's
// arguments it is a Claude Code that answers. No script is written to be
// exec'd: a parallel test's fork may hold it open for writing, and its
// exec then fails (ETXTBSY) and passes for an agent that cannot start.
func TestMain(m *testing.M) {
	if mode := os.Getenv("CSA_FAKE_ACP"); mode != "" {
		if len(os.Args) == 1 {
			fakeACPAgent(mode)
		} else {
			fakeClaude()
		}
		return
	}
	os.Exit(m.Run())
}

func fakeACPAgent(mode string) {
	a := &procAgent{mode: mode, dir: os.Getenv("CSA_FAKE_DIR"), cancelled: make(chan struct{})}
	if mode == "hang" {
		ossignal.Ignore(syscall.SIGTERM)
		// A grandchild in the group: it too must be gone at the end.
		exec.Command("sleep", "300").Start()
	}
	a.conn = sdk.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	<-a.conn.Done()
	// Like the real agents, do not exit on stdin EOF.
	sleepForever()
}

func fakeClaude() {
	os.WriteFile(filepath.Join(os.Getenv("CSA_FAKE_DIR"), "cli-ran"), nil, 0o644)
	fmt.Println(`{"type":"result","subtype":"success","result":"cli answer","session_id":"cli-session"}`)
}

// sleepForever never returns; a bare select{} is a deadlock the runtime
// may end (exit 2) once no other goroutine can run.
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

type procAgent struct {
	mode, dir string
	conn      *sdk.AgentSideConnection
	cancelled chan struct{}
}

func (a *procAgent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

func (a *procAgent) Initialize(context.Context, sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	if a.mode == "init-fail" {
		return sdk.InitializeResponse{}, errors.New("scripted initialize failure")
	}
	return sdk.InitializeResponse{ProtocolVersion: 1}, nil
}

func (a *procAgent) Cancel(context.Context, sdk.CancelNotification) error {
	os.WriteFile(filepath.Join(a.dir, "cancelled"), nil, 0o644)
	close(a.cancelled)
	return nil
}

func (a *procAgent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, nil
}

func (a *procAgent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, nil
}

func (a *procAgent) NewSession(context.Context, sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	return sdk.NewSessionResponse{SessionId: "fake-session"}, nil
}

func (a *procAgent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: p.SessionId, Update: sdk.UpdateAgentMessageText("fake answer")})
	switch a.mode {
	case "die":
		time.Sleep(50 * time.Millisecond)
		os.Exit(3)
	case "hang":
		<-a.cancelled
		// Never acknowledge: csa ends the group anyway.
		sleepForever()
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn, Usage: &sdk.Usage{InputTokens: 7, OutputTokens: 2}}, nil
}

func (a *procAgent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, errors.New("no resume")
}

func (a *procAgent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, nil
}

func (a *procAgent) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, nil
}

// acpRunFor prepares a claude-code run over the fake ACP agent in mode;
// its CLI fallback prints a stream-json answer and leaves a marker.
func acpRunFor(t *testing.T, mode string) (*Supervisor, *Run, string, context.Context, func(os.Signal)) {
	t.Helper()
	dir := t.TempDir()
	store, err := session.Open(filepath.Join(dir, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	agent, cli := exe, exe // see TestMain
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	req := Request{
		Tool: agents.ClaudeCode, Program: cli, ACPProgram: agent, Prompt: "hello", Yolo: true,
		Cwd: work, ProjectRoot: work, Grace: 500 * time.Millisecond, MaxLogBytes: 1 << 20,
		ToolEnv: []string{"CSA_FAKE_ACP=" + mode, "CSA_FAKE_DIR=" + dir},
	}
	run, err := Prepare(context.Background(), store, req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	sup := &Supervisor{Store: store, BaseEnv: os.Environ(), Now: time.Now, Stdout: io.Discard}
	return sup, run, dir, ctx, func(sig os.Signal) { cancel(&interrupt.Signal{Sig: sig}) }
}

func readEvents(s *Supervisor, id string) string {
	b, _ := os.ReadFile(s.Store.Path(id, "events.jsonl"))
	return string(b)
}

func TestACPRun(t *testing.T) {
	sup, run, dir, ctx, _ := acpRunFor(t, "ok")
	var out bytes.Buffer
	sup.Stdout = &out
	st, err := sup.Supervise(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != session.Completed || st.Result != "fake answer" || st.ProviderSessionID != "fake-session" || st.Usage == nil || st.Usage.InputTokens != 7 {
		t.Fatalf("state %+v (failure %+v)", st, st.Failure)
	}
	if out.String() != "fake answer\n" {
		t.Errorf("live text %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "cli-ran")); err == nil {
		t.Error("the CLI ran too")
	}
	if ev := readEvents(sup, st.ID); !strings.Contains(ev, `"transport":"acp"`) || strings.Contains(ev, `"warning"`) {
		t.Errorf("events:\n%s", ev)
	}
	if groupLeft(st.PGID) {
		t.Error("processes left in the agent's group")
	}
}

func TestACPFallbackOnSetupFailure(t *testing.T) {
	sup, run, dir, ctx, _ := acpRunFor(t, "init-fail")
	st, err := sup.Supervise(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != session.Completed || st.Result != "cli answer" {
		t.Fatalf("state %+v (failure %+v)", st, st.Failure)
	}
	if _, err := os.Stat(filepath.Join(dir, "cli-ran")); err != nil {
		t.Error("the CLI did not run")
	}
	ev := readEvents(sup, st.ID)
	if !strings.Contains(ev, `"type":"warning"`) || !strings.Contains(ev, "scripted initialize failure") || !strings.Contains(ev, "falling back to the CLI") {
		t.Errorf("no fallback warning:\n%s", ev)
	}
}

// TestACPStartFailure: an ACP agent that cannot be started falls back to
// the CLI; a sandbox that cannot be set up ends the run start_failed, the
// CLI not tried (it would fare no better).
func TestACPStartFailure(t *testing.T) {
	for _, tc := range []struct {
		name     string
		setup    func(*Run)
		status   session.Status
		fallback string // the warning's message, when the CLI ran
	}{
		{"program missing", func(r *Run) { r.Spec.ACP.Program = "/nonexistent/acp-agent" }, session.Completed, "acp: "},
		{"sandbox", func(r *Run) {
			r.Spec.Sandbox.Plan.Layer, r.Spec.Sandbox.Caps = resource.LayerCgroup2, &resource.Capabilities{}
		}, session.Failed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sup, run, dir, ctx, _ := acpRunFor(t, "ok")
			tc.setup(run)
			st, err := sup.Supervise(ctx, run)
			if err != nil {
				t.Fatal(err)
			}
			_, cliErr := os.Stat(filepath.Join(dir, "cli-ran"))
			ev := readEvents(sup, st.ID)
			if tc.fallback == "" {
				if st.Status != tc.status || st.Failure == nil || st.Failure.Class != session.FailStart ||
					!strings.Contains(st.Failure.Message, "cannot set up resource limits") {
					t.Fatalf("state %+v (failure %+v)", st, st.Failure)
				}
				if cliErr == nil || strings.Contains(ev, "falling back") {
					t.Errorf("fell back to the CLI:\n%s", ev)
				}
				return
			}
			if st.Status != tc.status || st.Result != "cli answer" || cliErr != nil {
				t.Fatalf("state %+v (failure %+v), the CLI: %v", st, st.Failure, cliErr)
			}
			if !strings.Contains(ev, `"message":"`+tc.fallback) || !strings.Contains(ev, "; falling back to the CLI") {
				t.Errorf("no fallback warning:\n%s", ev)
			}
		})
	}
}

func TestACPNoFallbackAfterPrompt(t *testing.T) {
	sup, run, dir, ctx, _ := acpRunFor(t, "die")
	st, err := sup.Supervise(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != session.Failed || st.Failure == nil || !strings.Contains(st.Failure.Message, "during the turn") {
		t.Fatalf("state %+v (failure %+v)", st, st.Failure)
	}
	if _, err := os.Stat(filepath.Join(dir, "cli-ran")); err == nil {
		t.Error("fell back to the CLI after the prompt started")
	}
}

func TestACPInterruptCancelsThenEndsGroup(t *testing.T) {
	sup, run, dir, ctx, signal := acpRunFor(t, "hang")
	done := make(chan *session.State, 1)
	go func() {
		st, err := sup.Supervise(ctx, run)
		if err != nil {
			t.Error(err)
		}
		done <- st
	}()
	waitTurn(t, sup, run.Spec.SessionID)
	signal(syscall.SIGINT)
	var st *session.State
	select {
	case st = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("supervisor did not end the run")
	}
	if st.Status != session.Killed || st.Failure == nil || st.Failure.Class != session.FailInterrupted {
		t.Fatalf("state %+v (failure %+v)", st, st.Failure)
	}
	if _, err := os.Stat(filepath.Join(dir, "cancelled")); err != nil {
		t.Error("session/cancel was not sent")
	}
	if !strings.Contains(readEvents(sup, st.ID), `"signal":"session/cancel"`) {
		t.Error("session/cancel not recorded")
	}
	if groupLeft(st.PGID) {
		t.Error("processes left in the agent's group")
	}
}

// groupLeft reports live members of process group pgid (zombies aside:
// a container's init may not reap them).
func groupLeft(pgid int) bool {
	for range 50 {
		if pgid <= 1 || !liveMember(pgid) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func liveMember(pgid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// waitTurn waits until the fake agent's turn is under way.
func waitTurn(t *testing.T, sup *Supervisor, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(readEvents(sup, id), `"type":"text"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the turn did not start:\n%s", readEvents(sup, id))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestACPTimeoutAndKillRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(*Run)
		act    func(*Supervisor, *Run)
		status session.Status
		class  string
	}{
		{"total timeout", func(r *Run) { r.Spec.Timeout = 1500 * time.Millisecond }, nil, session.TimedOut, session.FailTimeout},
		{"idle timeout", func(r *Run) { r.Spec.IdleTimeout = 1500 * time.Millisecond }, nil, session.TimedOut, session.FailTimeout},
		{"csa kill", nil, func(s *Supervisor, r *Run) {
			os.WriteFile(s.Store.Path(r.Spec.SessionID, session.KillRequest), []byte("killed by csa kill"), 0o600)
		}, session.Killed, session.FailKilled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sup, run, dir, ctx, _ := acpRunFor(t, "hang")
			if tc.setup != nil {
				tc.setup(run)
			}
			done := make(chan *session.State, 1)
			go func() {
				st, err := sup.Supervise(ctx, run)
				if err != nil {
					t.Error(err)
				}
				done <- st
			}()
			if tc.act != nil {
				waitTurn(t, sup, run.Spec.SessionID)
				tc.act(sup, run)
			}
			var st *session.State
			select {
			case st = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("supervisor did not end the run")
			}
			if st.Status != tc.status || st.Failure == nil || st.Failure.Class != tc.class {
				t.Fatalf("state %s, failure %+v", st.Status, st.Failure)
			}
			if _, err := os.Stat(filepath.Join(dir, "cancelled")); err != nil {
				t.Error("session/cancel was not sent")
			}
			if groupLeft(st.PGID) {
				t.Error("processes left in the agent's group")
			}
		})
	}
}
