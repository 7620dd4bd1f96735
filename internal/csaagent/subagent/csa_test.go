package subagent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/project"
	"github.com/csa-dev/csa/internal/session"
)

// csaRun is a csa state directory holding a running session, as csa
// leaves one for the csa-agent it runs: the test plays its supervisor.
type csaRun struct {
	stateDir, root string
	store          *session.Store
	parent         *session.State
	env            map[string]string
}

func newCSARun(t *testing.T) *csaRun {
	t.Helper()
	state, proj := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(proj, ".csa"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := project.FindRoot(proj)
	if err != nil {
		t.Fatal(err)
	}
	store, err := session.Open(filepath.Join(state, "projects", project.Slug(root), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	st := &session.State{ID: session.NewID(now), Tool: "csa-agent", Status: session.Running, ProjectRoot: root, Cwd: root,
		CreatedAt: now, StartedAt: now, SupervisorPID: os.Getpid()}
	h, err := store.Create(st.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Release() })
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	return &csaRun{stateDir: state, root: root, store: store, parent: st,
		env: map[string]string{"CSA_SESSION_ID": st.ID, "CSA_SESSION_DIR": store.Dir(st.ID)}}
}

func (r *csaRun) getenv(k string) string { return r.env[k] }

var (
	csaOnce sync.Once
	csaBin  string
	csaErr  error
)

// csa builds csa's own command once.
func csa(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds csa")
	}
	csaOnce.Do(func() {
		dir, err := os.MkdirTemp("", "csa-subagent-test")
		if err != nil {
			csaErr = err
			return
		}
		csaBin = filepath.Join(dir, "csa")
		out, err := exec.Command("go", "build", "-o", csaBin, "github.com/csa-dev/csa/cmd/csa").CombinedOutput()
		if err != nil {
			csaErr = fmt.Errorf("build csa: %v\n%s", err, out)
		}
	})
	if csaErr != nil {
		t.Fatal(csaErr)
	}
	return csaBin
}

// run runs csa in the project, outside any session.
func (r *csaRun) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(csa(t), args...)
	cmd.Dir = r.root
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CSA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CSA_STATE_DIR="+r.stateDir, "CSA_CONFIG_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("csa %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

type psRow struct {
	ID       string   `json:"id"`
	Tool     string   `json:"tool"`
	State    string   `json:"state"`
	Depth    int      `json:"depth"`
	ParentID string   `json:"parent_id"`
	Children []*psRow `json:"children"`
}

func TestSubagentsAreChildSessionsOfTheCSARun(t *testing.T) {
	r := newCSARun(t)
	p := model(func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if isMain(req) {
			if len(req.Messages) == 1 {
				return calls(task("t", "", "explore", false)), nil
			}
			return say("main done"), nil
		}
		if len(req.Messages) == 1 {
			return calls(llm.Block{Type: llm.BlockToolUse, ID: "r", Name: "Read", Input: json.RawMessage(`{}`)}), nil
		}
		return say("the subagent's answer"), nil
	})
	sink := newEvents()
	a, h := newMain(t, p, Config{Getenv: r.getenv}, sink)
	if h.Err() != nil {
		t.Fatal(h.Err())
	}
	if out := a.Run(context.Background(), llm.UserText("go")); out.Text != "main done" {
		t.Fatalf("outcome %+v", out)
	}
	id := (<-sink.starts).Agent
	st, err := r.store.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != session.Completed || st.ParentID != r.parent.ID || st.Depth != 1 || st.Tool != SessionTool ||
		st.Result != "the subagent's answer" || st.Turns != 2 || st.Usage == nil || st.Usage.InputTokens != 20 {
		t.Fatalf("child state %+v", st)
	}
	if r.store.SupervisorAlive(id) {
		t.Fatal("the child's lock is still held")
	}

	// csa's own commands see it.
	var rows []*psRow
	if err := json.Unmarshal([]byte(r.run(t, "ps", "--tree", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != r.parent.ID || len(rows[0].Children) != 1 {
		t.Fatalf("ps --tree %s", mustJSON(rows))
	}
	if c := rows[0].Children[0]; c.ID != id || c.Tool != SessionTool || c.State != "completed" || c.Depth != 1 || c.ParentID != r.parent.ID {
		t.Fatalf("child row %+v", c)
	}
	if logs := r.run(t, "logs", id); !strings.Contains(logs, "the subagent's answer") {
		t.Fatalf("csa logs: %q", logs)
	}
	evs := r.run(t, "logs", "--events", id)
	for _, want := range []string{`"session.created"`, `"tool_call"`, `"tool_result"`, `"usage"`, `"session.ended"`} {
		if !strings.Contains(evs, want) {
			t.Fatalf("events lack %s:\n%s", want, evs)
		}
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestCSAKillCancelsJustThatSubagent(t *testing.T) {
	r := newCSARun(t)
	victimDone := make(chan struct{})
	var results string
	p := model(func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if isMain(req) {
			if len(req.Messages) == 1 {
				return calls(task("v", "", "victim", false), task("s", "", "survivor", false)), nil
			}
			results = lastUser(req)
			return say("main carried on"), nil
		}
		switch firstPrompt(req) {
		case "victim":
			<-ctx.Done() // runs until killed
			return llm.Message{}, ctx.Err()
		default:
			select {
			case <-victimDone:
			case <-ctx.Done():
				return llm.Message{}, ctx.Err()
			}
			return say("survived"), nil
		}
	})
	sink := newEvents()
	a, _ := newMain(t, p, Config{Getenv: r.getenv, KillPoll: 20 * time.Millisecond}, sink)
	done := make(chan loop.Outcome, 1)
	go func() { done <- a.Run(context.Background(), llm.UserText("go")) }()
	ids := map[string]string{}
	for range 2 {
		e := <-sink.starts
		ids[e.Text] = e.Agent
	}
	victim, survivor := ids["desc victim"], ids["desc survivor"]
	out := r.run(t, "kill", "--grace", "20s", victim)
	if !strings.Contains(out, victim+"\tkilled") {
		t.Fatalf("csa kill: %q", out)
	}
	if e := <-sink.stops; e.Agent != victim || !e.IsError || e.Class != session.FailKilled {
		t.Fatalf("first stop %+v", e)
	}
	close(victimDone)
	if o := <-done; o.Text != "main carried on" {
		t.Fatalf("outcome %+v", o)
	}
	if !strings.Contains(results, "was stopped by csa kill") || !strings.Contains(results, "survived") {
		t.Fatalf("results %q", results)
	}
	vs, _ := r.store.Load(victim)
	ss, _ := r.store.Load(survivor)
	ps, _ := r.store.Load(r.parent.ID)
	if vs.Status != session.Killed || vs.Failure == nil || vs.Failure.Class != session.FailKilled ||
		ss.Status != session.Completed || ps.Status != session.Running {
		t.Fatalf("states: victim %+v, survivor %s, parent %s", vs, ss.Status, ps.Status)
	}
}
