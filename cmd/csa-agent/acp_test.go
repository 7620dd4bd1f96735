package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// acpScript answers the ACP tests; %[1]s is the working directory.
const acpScript = `
[[rule]]
name = "hello"
contains = "acp say hello"
  [[rule.step]]
  thinking = "A greeting is wanted."
  text = "Hello over ACP."

[[rule]]
name = "recall"
contains = "acp what did you say"
body = "Hello over ACP."
  [[rule.step]]
  text = "I said hello."

[[rule]]
name = "tools"
contains = "acp read the note"
  [[rule.step]]
  call = { name = "Read", args = { file_path = "%[1]s/note.txt" } }
  [[rule.step]]
  call = { name = "TodoWrite", args = { todos = [ { content = "read the note", status = "completed", activeForm = "Reading" }, { content = "answer", status = "in_progress", activeForm = "Answering" } ] } }
  [[rule.step]]
  text = "The note is read."

[[rule]]
name = "after-refusal"
contains = "acp make the file"
body = "the user declined this call"
  [[rule.step]]
  text = "never: the first request carries no refusal"
  [[rule.step]]
  shell = "touch made.txt"
  [[rule.step]]
  shell = "touch made.txt"
  [[rule.step]]
  text = "Made it after a refusal."

[[rule]]
name = "make"
contains = "acp make the file"
  [[rule.step]]
  shell = "touch made.txt"

[[rule]]
name = "context"
contains = "acp what is the secret"
body = "the secret is kiwi"
  [[rule.step]]
  text = "Kiwi."

[[rule]]
name = "plan"
contains = "acp plan first"
  [[rule.step]]
  call = { name = "EnterPlanMode", args = {} }
  [[rule.step]]
  text = "Planning."

[[rule]]
name = "slow"
contains = "acp slow turn"
  [[rule.step]]
  shell = "sleep 30"
  [[rule.step]]
  text = "Slept."
`

// acpClient is the editor's side: it records the agent's updates and
// answers permission requests from a list.
type acpClient struct {
	mu      sync.Mutex
	updates []acp.SessionNotification
	asked   []acp.RequestPermissionRequest
	answers []acp.PermissionOptionId // "" answers cancelled
	changed chan struct{}            // a token after each update
}

func (c *acpClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
	return nil
}

func (c *acpClient) RequestPermission(_ context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, r)
	if len(c.answers) == 0 || c.answers[0] == "" {
		if len(c.answers) > 0 {
			c.answers = c.answers[1:]
		}
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	}
	id := c.answers[0]
	c.answers = c.answers[1:]
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(id)}, nil
}

var errNoFS = errors.New("the test client serves no files or terminals")

func (c *acpClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errNoFS
}
func (c *acpClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errNoFS
}
func (c *acpClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errNoFS
}
func (c *acpClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errNoFS
}
func (c *acpClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errNoFS
}
func (c *acpClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errNoFS
}
func (c *acpClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errNoFS
}

// take returns and forgets the updates so far.
func (c *acpClient) take() []acp.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.updates
	c.updates = nil
	return out
}

// waitFor waits until an update satisfies ok.
func (c *acpClient) waitFor(t *testing.T, what string, ok func(acp.SessionUpdate) bool) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		for _, n := range c.updates {
			if ok(n.Update) {
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		select {
		case <-c.changed:
		case <-deadline.C:
			t.Fatalf("no %s within 60s", what)
		}
	}
}

// acpWorld is a home and a working directory whose model is the scripted
// model server.
type acpWorld struct {
	env  []string
	work string
	srv  *modelserver.Server
}

func newACPWorld(t *testing.T) *acpWorld {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	sc, err := modelserver.Parse([]byte(fmt.Sprintf(acpScript, work)))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(sc, modelserver.Options{})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=test-key", "CSA_AGENT_MODEL=anthropic/claude-test", "PATH=" + os.Getenv("PATH")}
	return &acpWorld{env: env, work: work, srv: srv}
}

// connect starts `csa-agent --acp` (this test binary, see TestMain) and
// connects to it as an editor would.
func (w *acpWorld) connect(t *testing.T) (*acp.ClientSideConnection, *acpClient) {
	t.Helper()
	cmd := exec.Command("csa-agent", "--acp")
	cmd.Env, cmd.Dir = w.env, w.work
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		// The client going away (stdin's end) ends the agent.
		stdin.Close()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("csa-agent --acp: %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("csa-agent --acp did not end when its stdin closed\n%s", stderr.String())
		}
	})
	c := &acpClient{changed: make(chan struct{}, 1)}
	conn := acp.NewClientSideConnection(c, stdin, stdout)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	init, err := conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}})
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	caps := init.AgentCapabilities
	if init.ProtocolVersion != acp.ProtocolVersionNumber || !caps.LoadSession || !caps.PromptCapabilities.EmbeddedContext ||
		init.AgentInfo == nil || init.AgentInfo.Name != "csa-agent" || init.AgentInfo.Version == "" {
		t.Fatalf("initialize answered %+v", init)
	}
	return conn, c
}

func (w *acpWorld) newSession(t *testing.T, conn *acp.ClientSideConnection) acp.SessionId {
	t.Helper()
	res, err := conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: w.work, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionId == "" || res.Modes == nil || res.Modes.CurrentModeId != "default" || len(res.Modes.AvailableModes) != 4 {
		t.Fatalf("session/new answered %+v (modes %+v)", res, res.Modes)
	}
	if res.Models == nil || res.Models.CurrentModelId != "anthropic/claude-test" {
		t.Fatalf("session/new models %+v", res.Models)
	}
	return res.SessionId
}

func prompt(t *testing.T, conn *acp.ClientSideConnection, id acp.SessionId, blocks ...acp.ContentBlock) acp.PromptResponse {
	t.Helper()
	res, err := conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: blocks})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	return res
}

// texts joins the message chunks of one kind ("agent_message_chunk",
// "agent_thought_chunk", "user_message_chunk").
func texts(ups []acp.SessionNotification, kind string) string {
	var b strings.Builder
	for _, n := range ups {
		var c *acp.ContentBlock
		switch u := n.Update; {
		case kind == "agent_message_chunk" && u.AgentMessageChunk != nil:
			c = &u.AgentMessageChunk.Content
		case kind == "agent_thought_chunk" && u.AgentThoughtChunk != nil:
			c = &u.AgentThoughtChunk.Content
		case kind == "user_message_chunk" && u.UserMessageChunk != nil:
			c = &u.UserMessageChunk.Content
		}
		if c != nil && c.Text != nil {
			b.WriteString(c.Text.Text)
		}
	}
	return b.String()
}

// statuses lists a tool call's start and updates: "start:KIND:TITLE",
// then each status, with ":TEXT" when the update carries content.
func statuses(ups []acp.SessionNotification, id acp.ToolCallId) []string {
	var out []string
	for _, n := range ups {
		switch u := n.Update; {
		case u.ToolCall != nil && u.ToolCall.ToolCallId == id:
			out = append(out, fmt.Sprintf("start:%s:%s", u.ToolCall.Kind, u.ToolCall.Title))
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == id && u.ToolCallUpdate.Status != nil:
			s := string(*u.ToolCallUpdate.Status)
			for _, c := range u.ToolCallUpdate.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					s += ":" + c.Content.Content.Text.Text
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// calls are the tool calls started, in order.
func calls(ups []acp.SessionNotification) []*acp.SessionUpdateToolCall {
	var out []*acp.SessionUpdateToolCall
	for _, n := range ups {
		if n.Update.ToolCall != nil {
			out = append(out, n.Update.ToolCall)
		}
	}
	return out
}

// TestACPAgent drives `csa-agent --acp` over its stdio with the SDK's
// client side, as an editor does: a streamed answer with its thinking,
// tool calls with their kinds, locations, updates and a plan, a
// permission refused then allowed for the session (the model's next
// request carries the refusal), embedded context, a cancelled long turn,
// a session loaded by another process with its history replayed and
// continued, and bad requests refused with clear errors.
func TestACPAgent(t *testing.T) {
	w := newACPWorld(t)
	if err := os.WriteFile(filepath.Join(w.work, "note.txt"), []byte("a note for the agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conn, c := w.connect(t)
	id := w.newSession(t, conn)

	t.Run("text", func(t *testing.T) {
		res := prompt(t, conn, id, acp.TextBlock("acp say hello"))
		ups := c.take()
		if res.StopReason != acp.StopReasonEndTurn || texts(ups, "agent_message_chunk") != "Hello over ACP." ||
			texts(ups, "agent_thought_chunk") != "A greeting is wanted." {
			t.Fatalf("stop %q, updates %s", res.StopReason, dumpUpdates(ups))
		}
		if res.Usage == nil || res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 {
			t.Fatalf("usage %+v", res.Usage)
		}
	})

	t.Run("tools", func(t *testing.T) {
		res := prompt(t, conn, id, acp.TextBlock("acp read the note"))
		ups := c.take()
		cs := calls(ups)
		if res.StopReason != acp.StopReasonEndTurn || len(cs) != 2 || texts(ups, "agent_message_chunk") != "The note is read." {
			t.Fatalf("stop %q, updates %s", res.StopReason, dumpUpdates(ups))
		}
		note := filepath.Join(w.work, "note.txt")
		read := cs[0]
		if read.Kind != acp.ToolKindRead || len(read.Locations) != 1 || read.Locations[0].Path != note ||
			read.RawInput.(map[string]any)["file_path"] != note {
			t.Fatalf("Read call %+v", read)
		}
		got := statuses(ups, read.ToolCallId)
		if len(got) != 3 || got[0] != "start:read:Read "+note || got[1] != "in_progress" ||
			!strings.HasPrefix(got[2], "completed:") || !strings.Contains(got[2], "a note for the agent") {
			t.Fatalf("Read call's updates %q", got)
		}
		if cs[1].Kind != acp.ToolKindThink {
			t.Fatalf("TodoWrite call %+v", cs[1])
		}
		var plan *acp.SessionUpdatePlan
		for _, n := range ups {
			if n.Update.Plan != nil {
				plan = n.Update.Plan
			}
		}
		if plan == nil || len(plan.Entries) != 2 || plan.Entries[0].Content != "read the note" ||
			plan.Entries[0].Status != acp.PlanEntryStatusCompleted || plan.Entries[1].Status != acp.PlanEntryStatusInProgress {
			t.Fatalf("plan %+v", plan)
		}
	})

	t.Run("permission", func(t *testing.T) {
		c.mu.Lock()
		c.answers = []acp.PermissionOptionId{"reject_once", "allow_always"}
		c.mu.Unlock()
		res := prompt(t, conn, id, acp.TextBlock("acp make the file"))
		ups := c.take()
		// The refusal reached the model: only a request carrying it is
		// answered with the second call and this text.
		if res.StopReason != acp.StopReasonEndTurn || texts(ups, "agent_message_chunk") != "Made it after a refusal." {
			t.Fatalf("stop %q, updates %s", res.StopReason, dumpUpdates(ups))
		}
		c.mu.Lock()
		asked := c.asked
		c.asked = nil
		c.mu.Unlock()
		// Refused, allowed for the session, then the same command again
		// without asking.
		if len(asked) != 2 || len(calls(ups)) != 3 {
			t.Fatalf("asked %d times for %d calls: %s", len(asked), len(calls(ups)), dumpUpdates(ups))
		}
		for _, r := range asked {
			var opts []string
			for _, o := range r.Options {
				opts = append(opts, string(o.OptionId)+"="+string(o.Kind))
			}
			if r.SessionId != id || r.ToolCall.Kind == nil || *r.ToolCall.Kind != acp.ToolKindExecute || r.ToolCall.Title == nil ||
				*r.ToolCall.Title != "touch made.txt" ||
				strings.Join(opts, ",") != "allow_once=allow_once,allow_always=allow_always,reject_once=reject_once" {
				t.Fatalf("permission request %+v, options %v", r, opts)
			}
		}
		first := statuses(ups, asked[0].ToolCall.ToolCallId)
		if len(first) != 2 || !strings.HasPrefix(first[1], "failed:") || !strings.Contains(first[1], "declined") {
			t.Fatalf("the refused call's updates %q", first)
		}
		if _, err := os.Stat(filepath.Join(w.work, "made.txt")); err != nil {
			t.Fatalf("the allowed call did not run: %v", err)
		}
	})

	t.Run("embedded_context", func(t *testing.T) {
		res := prompt(t, conn, id, acp.TextBlock("acp what is the secret"),
			acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{
				Uri: "file://" + filepath.Join(w.work, "secret.txt"), Text: "the secret is kiwi"}}))
		if ups := c.take(); res.StopReason != acp.StopReasonEndTurn || texts(ups, "agent_message_chunk") != "Kiwi." {
			t.Fatalf("stop %q, updates %s", res.StopReason, dumpUpdates(ups))
		}
	})

	t.Run("cancel", func(t *testing.T) {
		if _, err := conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: id, ModeId: "bypassPermissions"}); err != nil {
			t.Fatal(err)
		}
		type answer struct {
			res acp.PromptResponse
			err error
		}
		done := make(chan answer, 1)
		start := time.Now()
		go func() {
			res, err := conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("acp slow turn")}})
			done <- answer{res, err}
		}()
		// In bypassPermissions nothing is asked: the sleep runs.
		c.waitFor(t, "running sleep", func(u acp.SessionUpdate) bool {
			return u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == acp.ToolCallStatusInProgress
		})
		if err := conn.Cancel(context.Background(), acp.CancelNotification{SessionId: id}); err != nil {
			t.Fatal(err)
		}
		a := <-done
		if a.err != nil || a.res.StopReason != acp.StopReasonCancelled {
			t.Fatalf("cancelled prompt answered %+v, %v", a.res, a.err)
		}
		if took := time.Since(start); took > 25*time.Second {
			t.Fatalf("the cancelled turn took %v: the sleep was not ended", took)
		}
		ups := c.take()
		if cs := calls(ups); len(cs) != 1 || cs[0].Title != "sleep 30" || cs[0].Kind != acp.ToolKindExecute {
			t.Fatalf("updates %s", dumpUpdates(ups))
		}
		c.mu.Lock()
		asked := len(c.asked)
		c.mu.Unlock()
		if asked != 0 {
			t.Fatalf("asked %d times in bypassPermissions", asked)
		}
	})

	t.Run("bad_input", func(t *testing.T) {
		ctx := context.Background()
		bad := []struct {
			name, want string
			call       func() error
		}{
			{"unknown session", "no open session", func() error {
				_, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: "nope", Prompt: []acp.ContentBlock{acp.TextBlock("x")}})
				return err
			}},
			{"relative cwd", "not an absolute path", func() error {
				_, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "work", McpServers: []acp.McpServer{}})
				return err
			}},
			{"unknown mode", "want default, acceptEdits, plan or bypassPermissions", func() error {
				_, err := conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: id, ModeId: "yolo"})
				return err
			}},
			{"image", "image and audio blocks are not supported", func() error {
				_, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.ImageBlock("AAAA", "image/png")}})
				return err
			}},
			{"empty prompt", "the prompt is empty", func() error {
				_, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("  ")}})
				return err
			}},
			{"authenticate", "offers none", func() error {
				_, err := conn.Authenticate(ctx, acp.AuthenticateRequest{MethodId: "oauth"})
				return err
			}},
			{"load unknown", "no stored session", func() error {
				_, err := conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: "00000000-0000-4000-8000-000000000000", Cwd: w.work, McpServers: []acp.McpServer{}})
				return err
			}},
		}
		for _, b := range bad {
			if err := b.call(); err == nil || !strings.Contains(err.Error(), b.want) {
				t.Errorf("%s: error %v, want one saying %q", b.name, err, b.want)
			}
		}
	})

	t.Run("load", func(t *testing.T) {
		// Another editor process loads the conversation.
		conn2, c2 := w.connect(t)
		res, err := conn2.LoadSession(context.Background(), acp.LoadSessionRequest{SessionId: id, Cwd: w.work, McpServers: []acp.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		ups := c2.take()
		user := texts(ups, "user_message_chunk")
		if !strings.HasPrefix(user, "acp say hello") || !strings.Contains(user, "acp make the file") ||
			!strings.HasPrefix(texts(ups, "agent_message_chunk"), "Hello over ACP.The note is read.") ||
			texts(ups, "agent_thought_chunk") != "A greeting is wanted." {
			t.Fatalf("replay %s", dumpUpdates(ups))
		}
		// The replayed calls: Read, TodoWrite, three touches, the sleep;
		// each with its result.
		cs := calls(ups)
		if len(cs) != 6 || cs[0].Kind != acp.ToolKindRead {
			t.Fatalf("replayed calls %s", dumpUpdates(ups))
		}
		if got := statuses(ups, cs[0].ToolCallId); len(got) != 2 || !strings.Contains(got[1], "a note for the agent") {
			t.Fatalf("replayed Read %q", got)
		}
		if res.Modes == nil || res.Modes.CurrentModeId != "default" {
			t.Fatalf("load modes %+v", res.Modes)
		}
		// The conversation goes on: the model sees the earlier answer.
		if p := prompt(t, conn2, id, acp.TextBlock("acp what did you say")); p.StopReason != acp.StopReasonEndTurn ||
			texts(c2.take(), "agent_message_chunk") != "I said hello." {
			t.Fatalf("continued prompt %+v", p)
		}
	})
}

// TestACPAgentSessions: session/list by directory, session/set_model (the
// conversation goes on, on the other model), a mode change the model makes
// (current_mode_update), session/close.
func TestACPAgentSessions(t *testing.T) {
	w := newACPWorld(t)
	conn, c := w.connect(t)
	id := w.newSession(t, conn)
	ctx := context.Background()
	prompt(t, conn, id, acp.TextBlock("acp say hello"))
	c.take()

	list, err := conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: acp.Ptr(w.work)})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Title == nil ||
		*list.Sessions[0].Title != "acp say hello" || list.Sessions[0].Cwd != w.work {
		t.Fatalf("session/list %+v, %v", list, err)
	}
	if other, err := conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: acp.Ptr("/elsewhere")}); err != nil || len(other.Sessions) != 0 {
		t.Fatalf("session/list of another directory %+v, %v", other, err)
	}

	if _, err := conn.UnstableSetSessionModel(ctx, acp.UnstableSetSessionModelRequest{SessionId: id, ModelId: "anthropic/claude-other"}); err != nil {
		t.Fatal(err)
	}
	// The conversation goes on, on the other model.
	prompt(t, conn, id, acp.TextBlock("acp what did you say"))
	if got := texts(c.take(), "agent_message_chunk"); got != "I said hello." {
		t.Fatalf("after set_model: %q", got)
	}
	if !w.srv.Settle(time.Minute) {
		t.Fatal("the model server is still answering")
	}
	reqs := w.srv.Requests()
	if last := reqs[len(reqs)-1]; last.Model != "claude-other" {
		t.Fatalf("last model request %+v, want model claude-other", last)
	}

	// The model's own EnterPlanMode changes the session's mode.
	prompt(t, conn, id, acp.TextBlock("acp plan first"))
	var modes []string
	for _, n := range c.take() {
		if u := n.Update.CurrentModeUpdate; u != nil {
			modes = append(modes, string(u.CurrentModeId))
		}
	}
	if strings.Join(modes, ",") != "plan" {
		t.Fatalf("mode updates %q, want plan", modes)
	}

	if _, err := conn.CloseSession(ctx, acp.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("x")}}); err == nil ||
		!strings.Contains(err.Error(), "no open session") {
		t.Fatalf("prompt after session/close: %v", err)
	}
}

func dumpUpdates(ups []acp.SessionNotification) string {
	var b strings.Builder
	for _, n := range ups {
		j, _ := json.Marshal(n.Update)
		b.WriteString("\n  " + string(j))
	}
	return b.String()
}
