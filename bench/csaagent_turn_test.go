package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/providers"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/csaagent/tool"
	"github.com/csa-dev/csa/internal/csaagent/tools"
)

// BenchmarkAgentTurn is issue 12's loop target: the loop's own time per
// turn (building and encoding the request, streaming and decoding the
// answer, dispatching the tool, recording) over raw HTTP to the same
// server. The same 50-turn session runs through the loop, then its
// requests are replayed as they were sent with plain net/http; the
// difference per turn, less the tools' own run time, is the loop's cost.
func BenchmarkAgentTurn(b *testing.B) {
	_, url := scriptedServer(b, sessionScript(agentSessionTurns))
	dir := filepath.Join(benchDir, "agent-turn")
	os.RemoveAll(dir)
	os.MkdirAll(dir, 0o700)
	writeDataFile(b, dir)
	var per []time.Duration
	for i := 0; i < b.N; i++ {
		rec := &recorder{base: http.DefaultTransport}
		prov, err := providers.New("anthropic", providers.Config{BaseURL: url, APIKey: "bench", Client: &http.Client{Transport: rec}})
		if err != nil {
			b.Fatal(err)
		}
		conv, err := store.Create(filepath.Join(dir, "sessions"), fmt.Sprintf("s%d", i), store.Record{})
		if err != nil {
			b.Fatal(err)
		}
		env := &tool.Env{Cwd: dir, Roots: []string{dir}, Files: tool.NewFileState(), Jobs: tool.NewJobs(filepath.Join(dir, "jobs")),
			Todos: &tool.Todos{}, SpillDir: filepath.Join(dir, "spill")}
		tt := &toolTimer{started: map[string]time.Time{}}
		a := loop.New(loop.Config{Provider: prov, Model: "claude-bench", System: "Working directory: " + dir,
			Tools: tools.All(), Env: env, Sink: event.Multi{conv, tt}, Record: func(m llm.Message) { conv.Message(m) }}, nil)
		start := time.Now()
		out := a.Run(context.Background(), llm.UserText("long session"))
		loopTime := time.Since(start)
		conv.Close()
		if out.End != loop.EndDone || out.Turns != agentSessionTurns+1 {
			b.Fatalf("session ended %s after %d turns: %v", out.End, out.Turns, out.Err)
		}
		start = time.Now()
		for _, body := range rec.bodies {
			replay(b, url+"/v1/messages", body)
		}
		rawTime := time.Since(start)
		per = append(per, (loopTime-rawTime-tt.total)/time.Duration(out.Turns))
	}
	p50, p90 := report(b, "loop-per-turn", per)
	record("agent-turn", "csa-agent: the loop's own time per turn", fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(p50), ms(p90)),
		"≤ 2 ms", within(p50, p90, agentTurnLimit))
}

// toolTimer sums the tools' own run time (their work is not the loop's).
type toolTimer struct {
	mu      sync.Mutex
	started map[string]time.Time
	total   time.Duration
}

func (t *toolTimer) Emit(e event.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e.Kind {
	case event.ToolStarted:
		t.started[e.ToolID] = e.Time
	case event.ToolFinished:
		if s, ok := t.started[e.ToolID]; ok {
			t.total += e.Time.Sub(s)
		}
	}
}

// recorder keeps the bodies of the requests it carries.
type recorder struct {
	base   http.RoundTripper
	mu     sync.Mutex
	bodies [][]byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.bodies = append(r.bodies, body)
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(body))
	return r.base.RoundTrip(req)
}

// replay posts body as the Anthropic client did and reads the whole
// answer.
func replay(b *testing.B, url string, body []byte) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", "bench")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}
