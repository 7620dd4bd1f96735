package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/agents"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func setup(t *testing.T, r *rig) {
	t.Helper()
	if err := r.client.Setup(ctxT(t)); err != nil {
		t.Fatalf("setup: %v", err)
	}
}

func TestPlainTurn(t *testing.T) {
	a := &fakeAgent{}
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: p.SessionId, Update: sdk.UpdateAgentThoughtText("thinking")})
		a.say(ctx, p.SessionId, "Hello ")
		a.say(ctx, p.SessionId, "world.\n")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn, Usage: &sdk.Usage{InputTokens: 10, OutputTokens: 3}}, nil
	}
	r := newRig(t, Config{Cwd: t.TempDir(), Instructions: "be brief"}, a)
	setup(t, r)
	res, err := r.client.Prompt(ctxT(t), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hello world." || res.StopReason != "end_turn" || res.Usage == nil || res.Usage.InputTokens != 10 {
		t.Fatalf("result %+v", res)
	}
	if got := strings.Join(r.events.text, ""); got != "Hello world.\n" {
		t.Errorf("live text %q", got)
	}
	if s := r.events.of(agents.EvSession); len(s) != 1 || s[0].(agents.SessionEvent).ID != "sess-1" {
		t.Errorf("provider session events %v", s)
	}
	if len(r.events.of(agents.EvThought)) != 1 || len(r.events.of(agents.EvUsage)) != 1 || len(r.events.of(agents.EvText)) != 2 {
		t.Errorf("events %+v", r.events.evs)
	}
	if m, _ := a.newReq.Meta["systemPrompt"].(map[string]any); m["append"] != "be brief" {
		t.Errorf("instructions not handed over: %v", a.newReq.Meta)
	}
}

func TestYoloSetsNoApprovalMode(t *testing.T) {
	for _, tc := range []struct {
		yolo  bool
		modes []sdk.SessionModeId
		want  []sdk.SessionModeId
	}{
		{true, []sdk.SessionModeId{"default", "bypassPermissions"}, []sdk.SessionModeId{"bypassPermissions"}},
		{true, []sdk.SessionModeId{"read-only", "auto", "full-access"}, []sdk.SessionModeId{"full-access"}},
		{true, []sdk.SessionModeId{"default"}, nil},
		{false, []sdk.SessionModeId{"default", "bypassPermissions"}, nil},
	} {
		a := &fakeAgent{newSession: func(sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
			st := &sdk.SessionModeState{CurrentModeId: tc.modes[0]}
			for _, m := range tc.modes {
				st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: m, Name: string(m)})
			}
			return sdk.NewSessionResponse{SessionId: "s", Modes: st}, nil
		}}
		r := newRig(t, Config{Cwd: t.TempDir(), Yolo: tc.yolo}, a)
		setup(t, r)
		if fmt.Sprint(a.modes) != fmt.Sprint(tc.want) {
			t.Errorf("yolo %v, modes %v: set %v, want %v", tc.yolo, tc.modes, a.modes, tc.want)
		}
	}
}

func TestSetupErrors(t *testing.T) {
	boom := errors.New("boom")
	for name, a := range map[string]*fakeAgent{
		"initialize":  {initialize: func(sdk.InitializeRequest) (sdk.InitializeResponse, error) { return sdk.InitializeResponse{}, boom }},
		"session/new": {newSession: func(sdk.NewSessionRequest) (sdk.NewSessionResponse, error) { return sdk.NewSessionResponse{}, boom }},
		"no id":       {newSession: func(sdk.NewSessionRequest) (sdk.NewSessionResponse, error) { return sdk.NewSessionResponse{}, nil }},
	} {
		r := newRig(t, Config{Cwd: t.TempDir()}, a)
		err := r.client.Setup(ctxT(t))
		var se *SetupError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v is not a SetupError", name, err)
		}
	}
	// A prompt's failure is not a set-up failure: no fallback after it.
	a := &fakeAgent{prompt: func(context.Context, sdk.PromptRequest) (sdk.PromptResponse, error) {
		return sdk.PromptResponse{}, boom
	}}
	r := newRig(t, Config{Cwd: t.TempDir()}, a)
	setup(t, r)
	_, err := r.client.Prompt(ctxT(t), "x")
	var se *SetupError
	if err == nil || errors.As(err, &se) {
		t.Errorf("prompt error %v", err)
	}
}

func TestSetupAgentDies(t *testing.T) {
	a := &fakeAgent{}
	a.initialize = func(sdk.InitializeRequest) (sdk.InitializeResponse, error) {
		go a.out.w.Close()
		select {}
	}
	r := newRig(t, Config{Cwd: t.TempDir()}, a)
	err := r.client.Setup(ctxT(t))
	var se *SetupError
	if !errors.As(err, &se) || se.Step != "initialize" {
		t.Fatalf("got %v", err)
	}
}

func TestFSConfined(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("1\n2\n3\n4\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644)
	a := &fakeAgent{}
	var results []string
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		try := func(err error) {
			results = append(results, fmt.Sprint(err == nil))
		}
		_, err := a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: p.SessionId, Path: filepath.Join(dir, "sub", "new.txt"), Content: "new\n"})
		try(err)
		_, err = a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: p.SessionId, Path: filepath.Join(outside, "x.txt"), Content: "x"})
		try(err)
		_, err = a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: p.SessionId, Path: filepath.Join(dir, "link", "x.txt"), Content: "x"})
		try(err)
		_, err = a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: p.SessionId, Path: dir + "/../escape.txt", Content: "x"})
		try(err)
		_, err = a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: p.SessionId, Path: filepath.Join(outside, "secret")})
		try(err)
		res, err := a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: p.SessionId, Path: filepath.Join(dir, "in.txt"), Line: sdk.Ptr(2), Limit: sdk.Ptr(2)})
		try(err)
		results = append(results, res.Content)
		a.say(ctx, p.SessionId, "done")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	r := newRig(t, Config{Cwd: dir}, a)
	setup(t, r)
	if _, err := r.client.Prompt(ctxT(t), "x"); err != nil {
		t.Fatal(err)
	}
	want := "true false false false false true 2\n3\n"
	if got := strings.Join(results, " "); got != want {
		t.Errorf("results %q, want %q", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "new.txt")); err != nil || string(b) != "new\n" {
		t.Errorf("inside write: %q %v", b, err)
	}
	for _, p := range []string{filepath.Join(outside, "x.txt"), filepath.Join(filepath.Dir(dir), "escape.txt")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s written outside", p)
		}
	}
	refused := 0
	for _, e := range r.events.of(EvFS) {
		if e.(map[string]any)["refused"] == true {
			refused++
		}
	}
	if refused != 4 || len(r.events.of(agents.EvError)) != 4 {
		t.Errorf("refusals recorded: %d fs, %d errors", refused, len(r.events.of(agents.EvError)))
	}
}

// Agents send relative paths although ACP asks for absolute ones: they are
// taken from the working directory and confined as any other.
func TestFSRelative(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("inside\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644)
	a := &fakeAgent{}
	var results []string
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		write := func(path string) {
			_, err := a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: p.SessionId, Path: path, Content: "x\n"})
			results = append(results, fmt.Sprint(err == nil))
		}
		read := func(path string) {
			res, err := a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: p.SessionId, Path: path})
			results = append(results, fmt.Sprintf("%v:%q", err == nil, res.Content))
		}
		read("in.txt")
		write("sub/rel.txt")
		write("../escape.txt")
		write("sub/../../escape2.txt")
		write("link/x.txt")
		read(filepath.Join("..", filepath.Base(outside), "secret"))
		write(filepath.Join(dir, "abs.txt"))
		read(filepath.Join(dir, "abs.txt"))
		a.say(ctx, p.SessionId, "done")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	r := newRig(t, Config{Cwd: dir}, a)
	setup(t, r)
	if _, err := r.client.Prompt(ctxT(t), "x"); err != nil {
		t.Fatal(err)
	}
	want := `true:"inside\n" true false false false false:"" true true:"x\n"`
	if got := strings.Join(results, " "); got != want {
		t.Errorf("results %s, want %s", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "rel.txt")); err != nil || string(b) != "x\n" {
		t.Errorf("relative write: %q %v", b, err)
	}
	for _, p := range []string{filepath.Join(filepath.Dir(dir), "escape.txt"), filepath.Join(filepath.Dir(dir), "escape2.txt"), filepath.Join(outside, "x.txt")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s written outside", p)
		}
	}
	// Each request is recorded; a relative one says so, with the path as
	// the agent gave it.
	var got []string
	for _, e := range r.events.of(EvFS) {
		m := e.(map[string]any)
		got = append(got, fmt.Sprintf("%v %v %v %v", m["op"], m["relative"], m["requested"], m["refused"]))
	}
	wantEvs := []string{
		"read true in.txt <nil>",
		"write true sub/rel.txt <nil>",
		"write true ../escape.txt true",
		"write true sub/../../escape2.txt true",
		"write true link/x.txt true",
		"read true " + filepath.Join("..", filepath.Base(outside), "secret") + " true",
		"write <nil> <nil> <nil>",
		"read <nil> <nil> <nil>",
	}
	if strings.Join(got, "\n") != strings.Join(wantEvs, "\n") {
		t.Errorf("fs events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantEvs, "\n"))
	}
	if m := r.events.of(EvFS)[1].(map[string]any); m["path"] != filepath.Join(resolve(dir), "sub", "rel.txt") {
		t.Errorf("resolved path recorded %v", m["path"])
	}
}

func permOptions() []sdk.PermissionOption {
	return []sdk.PermissionOption{
		{OptionId: "always", Kind: sdk.PermissionOptionKindAllowAlways, Name: "Always"},
		{OptionId: "once", Kind: sdk.PermissionOptionKindAllowOnce, Name: "Once"},
		{OptionId: "no", Kind: sdk.PermissionOptionKindRejectOnce, Name: "No"},
	}
}

func TestPermissionPolicy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		kind  sdk.ToolKind
		opts  []sdk.PermissionOption
		want  string // selected option, or "cancelled"
		allow bool
	}{
		{"yolo", Config{Yolo: true}, sdk.ToolKindExecute, permOptions(), "once", true},
		{"headless default deny", Config{}, sdk.ToolKindExecute, permOptions(), "no", false},
		{"allowed kind", Config{AllowKinds: []string{"read"}}, sdk.ToolKindRead, permOptions(), "once", true},
		{"other kind denied", Config{AllowKinds: []string{"read"}}, sdk.ToolKindEdit, permOptions(), "no", false},
		{"no reject option", Config{}, sdk.ToolKindEdit, permOptions()[:2], "cancelled", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &fakeAgent{}
			var got string
			a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
				res, err := a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: p.SessionId, Options: tc.opts,
					ToolCall: sdk.ToolCallUpdate{ToolCallId: "t1", Kind: sdk.Ptr(tc.kind), Title: sdk.Ptr("run it")}})
				switch {
				case err != nil:
					got = err.Error()
				case res.Outcome.Selected != nil:
					got = string(res.Outcome.Selected.OptionId)
				case res.Outcome.Cancelled != nil:
					got = "cancelled"
				}
				a.say(ctx, p.SessionId, "ok")
				return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
			}
			tc.cfg.Cwd = t.TempDir()
			r := newRig(t, tc.cfg, a)
			setup(t, r)
			res, err := r.client.Prompt(ctxT(t), "x")
			if err != nil {
				t.Fatal(err)
			}
			if denied := len(res.Denied) == 1; denied == tc.allow {
				t.Errorf("denied requests in the result: %v", res.Denied)
			}
			if got != tc.want {
				t.Errorf("answer %q, want %q", got, tc.want)
			}
			recs := r.events.of(EvPermission)
			if len(recs) != 1 {
				t.Fatalf("permission records %v", recs)
			}
			rec := recs[0].(map[string]any)
			if rec["allowed"] != tc.allow || rec["reason"] == "" {
				t.Errorf("record %v", rec)
			}
		})
	}
}

func TestPermissionStorm(t *testing.T) {
	const n = 500
	a := &fakeAgent{}
	var mu sync.Mutex
	allowed := 0
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: p.SessionId, Options: permOptions(),
					ToolCall: sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(fmt.Sprint(i))}})
				if err == nil && res.Outcome.Selected != nil {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		a.say(ctx, p.SessionId, "survived")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	r := newRig(t, Config{Cwd: t.TempDir(), Yolo: true}, a)
	setup(t, r)
	res, err := r.client.Prompt(ctxT(t), "x")
	if err != nil || res.Text != "survived" || allowed != n || len(r.events.of(EvPermission)) != n {
		t.Fatalf("res %+v err %v allowed %d records %d", res, err, allowed, len(r.events.of(EvPermission)))
	}
}

func TestHugeUpdates(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	a := &fakeAgent{}
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		for range 3 {
			if err := a.say(ctx, p.SessionId, big); err != nil {
				return sdk.PromptResponse{}, err
			}
		}
		a.say(ctx, p.SessionId, "END")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	r := newRig(t, Config{Cwd: t.TempDir()}, a)
	setup(t, r)
	res, err := r.client.Prompt(ctxT(t), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Text) > 2*agents.MaxResult || !strings.HasSuffix(res.Text, "xEND") {
		t.Fatalf("answer kept %d bytes, ends %q", len(res.Text), res.Text[len(res.Text)-4:])
	}
	if len(r.events.of(agents.EvText)) != 4 {
		t.Errorf("text events %d", len(r.events.of(agents.EvText)))
	}
}

func TestMalformedMessages(t *testing.T) {
	a := &fakeAgent{}
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		for _, line := range []string{
			"not json at all\n",
			"{\"jsonrpc\":\"2.0\"}\n",
			"{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":1}}\n",
			"{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"no_such_update\"}}}\n",
			"{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"no/such_method\",\"params\":{}}\n",
			"{\"jsonrpc\":\"2.0\",\"id\":12345,\"result\":{}}\n",
			"\n",
		} {
			a.out.Write([]byte(line))
		}
		a.say(ctx, p.SessionId, "still here")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	r := newRig(t, Config{Cwd: t.TempDir()}, a)
	setup(t, r)
	res, err := r.client.Prompt(ctxT(t), "x")
	if err != nil || res.Text != "still here" {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestAgentDiesMidTurn(t *testing.T) {
	a := &fakeAgent{}
	r := &rig{}
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		a.say(ctx, p.SessionId, "partial")
		r.kill()
		<-ctx.Done()
		return sdk.PromptResponse{}, ctx.Err()
	}
	*r = *newRig(t, Config{Cwd: t.TempDir()}, a)
	setup(t, r)
	start := time.Now()
	res, err := r.client.Prompt(ctxT(t), "x")
	var se *SetupError
	if err == nil || errors.As(err, &se) || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if res.Text != "partial" {
		t.Errorf("partial answer lost: %q", res.Text)
	}
	select {
	case <-r.client.Done():
	case <-time.After(5 * time.Second):
		t.Error("connection not done")
	}
}

func TestCancel(t *testing.T) {
	a := &fakeAgent{}
	started := make(chan struct{})
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		close(started)
		for {
			a.mu.Lock()
			n := a.cancelled
			a.mu.Unlock()
			if n > 0 {
				return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	r := newRig(t, Config{Cwd: t.TempDir()}, a)
	setup(t, r)
	done := make(chan Result, 1)
	go func() {
		res, _ := r.client.Prompt(context.Background(), "x")
		done <- res
	}()
	<-started
	if err := r.client.Cancel(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.StopReason != "cancelled" {
			t.Errorf("stop reason %q", res.StopReason)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("turn did not end after session/cancel")
	}
}

func TestResumeLoadsSession(t *testing.T) {
	a := &fakeAgent{}
	var loaded sdk.SessionId
	a.initialize = func(sdk.InitializeRequest) (sdk.InitializeResponse, error) {
		return sdk.InitializeResponse{ProtocolVersion: 1, AgentCapabilities: sdk.AgentCapabilities{LoadSession: true}}, nil
	}
	a.load = func(p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
		loaded = p.SessionId
		// The replayed history is not this turn's answer.
		a.say(context.Background(), p.SessionId, "old answer")
		return sdk.LoadSessionResponse{}, nil
	}
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		a.say(ctx, p.SessionId, "new answer")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	r := newRig(t, Config{Cwd: t.TempDir(), ResumeID: "old-1"}, a)
	setup(t, r)
	res, err := r.client.Prompt(ctxT(t), "x")
	if err != nil || loaded != "old-1" || res.Text != "new answer" || r.client.SessionID() != "old-1" {
		t.Fatalf("loaded %q, res %+v, err %v", loaded, res, err)
	}
	// An agent that can neither load nor resume: set-up fails (fallback).
	r = newRig(t, Config{Cwd: t.TempDir(), ResumeID: "old-1"}, &fakeAgent{})
	var se *SetupError
	if err := r.client.Setup(ctxT(t)); !errors.As(err, &se) {
		t.Fatalf("got %v", err)
	}
}

func TestToolCallEvents(t *testing.T) {
	a := &fakeAgent{}
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: p.SessionId, Update: sdk.StartToolCall("t1", "Write a.txt", sdk.WithStartKind(sdk.ToolKindEdit), sdk.WithStartRawInput(map[string]any{"path": "a.txt"}))})
		a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: p.SessionId, Update: sdk.UpdateToolCall("t1", sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress))})
		a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: p.SessionId, Update: sdk.UpdateToolCall("t1", sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("ok"))}))})
		a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: p.SessionId, Update: sdk.UpdatePlan(sdk.PlanEntry{Content: "step", Priority: sdk.PlanEntryPriorityHigh, Status: sdk.PlanEntryStatusPending})})
		a.say(ctx, p.SessionId, "done")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	r := newRig(t, Config{Cwd: t.TempDir()}, a)
	setup(t, r)
	if _, err := r.client.Prompt(ctxT(t), "x"); err != nil {
		t.Fatal(err)
	}
	calls, results := r.events.of(agents.EvToolCall), r.events.of(agents.EvToolResult)
	if len(calls) != 1 || calls[0].(agents.ToolCall).Name != "Write a.txt" || string(calls[0].(agents.ToolCall).Input) != `{"path":"a.txt"}` {
		t.Errorf("tool calls %v", calls)
	}
	if len(results) != 1 || results[0].(agents.ToolResult).Output != "ok" {
		t.Errorf("tool results %v", results)
	}
	if len(r.events.of(EvToolUpdate)) != 1 || len(r.events.of(EvPlan)) != 1 {
		t.Errorf("events %+v", r.events.evs)
	}
}

// A line beyond the SDK's 10 MiB limit ends the connection: the turn
// fails at once instead of hanging.
func TestOversizedLine(t *testing.T) {
	a := &fakeAgent{}
	a.prompt = func(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
		line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` +
			strings.Repeat("x", 11<<20) + `"}}}}` + "\n"
		a.out.Write([]byte(line))
		<-ctx.Done()
		return sdk.PromptResponse{}, ctx.Err()
	}
	r := newRig(t, Config{Cwd: t.TempDir()}, a)
	setup(t, r)
	start := time.Now()
	if _, err := r.client.Prompt(ctxT(t), "x"); err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}
