package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// Factory makes the provider under test for an endpoint whose BaseURL is
// the server's root (http://127.0.0.1:PORT).
type Factory func(ep httpc.Endpoint) llm.Provider

// Features are what an API can show on the wire.
type Features struct {
	// IDsOnWire: tool-call IDs travel back in the next request (Gemini
	// has none: the client makes them up).
	IDsOnWire bool
	// Signatures: thinking carries a signature that must travel back.
	Signatures bool
}

// Model is the model the suite asks for.
const Model = "test-model"

// env is one server and one client connection pool for a suite.
type env struct {
	t      *testing.T
	srv    *modelserver.Server
	dump   string
	client *http.Client
	newP   Factory
	base   string
}

func (e *env) provider(to llm.Timeouts) llm.Provider {
	return e.newP(httpc.Endpoint{BaseURL: e.base, APIKey: "test-key", Timeouts: to, Client: e.client})
}

// lastBody is the latest request body the server received.
func (e *env) lastBody() string {
	e.t.Helper()
	entries, err := os.ReadDir(e.dump)
	if err != nil || len(entries) == 0 {
		e.t.Fatalf("no dumped requests: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(e.dump, entries[len(entries)-1].Name()))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// records are the server's records of a rule, once it has n: the server
// logs a request when its handler ends, which may be after the client has
// its answer (or, for a stall, has left).
func (e *env) records(rule string, n int) []modelserver.RequestRecord {
	var out []modelserver.RequestRecord
	waitFor(10*time.Second, func() bool {
		out = nil
		for _, r := range e.srv.Requests() {
			if r.Rule == rule {
				out = append(out, r)
			}
		}
		return len(out) >= n
	})
	return out
}

var readTool = llm.ToolSpec{Name: "Read", Description: "Read a file.",
	Schema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`)}

func request(prompt string) *llm.Request {
	return &llm.Request{Model: Model, System: "You are a test.", Messages: []llm.Message{llm.UserText(prompt)},
		Tools: []llm.ToolSpec{readTool}, MaxTokens: 1024}
}

// deltas records what onDelta saw.
type deltas []llm.Delta

func (d *deltas) add(x llm.Delta) { *d = append(*d, x) }

func (d deltas) of(kind string) []llm.Delta {
	var out []llm.Delta
	for _, x := range d {
		if x.Kind == kind {
			out = append(out, x)
		}
	}
	return out
}

// Run runs the suite.
func Run(t *testing.T, newP Factory, f Features) {
	script, err := modelserver.Parse([]byte(Script))
	if err != nil {
		t.Fatal(err)
	}
	dump := t.TempDir()
	srv := modelserver.New(script, modelserver.Options{DumpDir: dump})
	base, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	before := runtime.NumGoroutine()
	e := &env{t: t, srv: srv, dump: dump, client: &http.Client{Transport: transport}, newP: newP, base: base}
	t.Run("text", e.text)
	t.Run("call", func(t *testing.T) { e.calls(t, "please read x", []string{"x"}, "Read x.", "", f) })
	t.Run("calls", func(t *testing.T) { e.calls(t, "read both files", []string{"x", "y"}, "Read both.", "", f) })
	t.Run("thinking", func(t *testing.T) { e.calls(t, "think first", []string{"x"}, "Thought and read.", "low", f) })
	t.Run("rate_limit", e.rateLimit)
	t.Run("overloaded", e.overloaded)
	t.Run("truncated", func(t *testing.T) { e.retried(t, "truncated", llm.ErrTruncated, llm.Timeouts{}) })
	t.Run("stall", func(t *testing.T) { e.retried(t, "stall", llm.ErrStalled, llm.Timeouts{Stall: time.Second}) })
	t.Run("header_timeout", func(t *testing.T) {
		e.retried(t, "slow headers", llm.ErrHeaderTimeout, llm.Timeouts{Request: time.Second})
	})
	t.Run("slow_chunks", e.slowChunks)
	t.Run("auth", e.auth)
	t.Run("cancel", e.cancel)
	_ = srv.Close()
	transport.CloseIdleConnections()
	// Nothing a client started may outlive its calls (the stall timer
	// above all); the server's and transport's goroutines end on close.
	if !waitFor(5*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}

// waitFor polls cond until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronisation
	}
	return true
}

func (e *env) text(t *testing.T) {
	var d deltas
	resp, err := e.provider(llm.Timeouts{}).Stream(context.Background(), request("say hello"), d.add)
	if err != nil {
		t.Fatal(err)
	}
	text := resp.Message.Text()
	var joined string
	for _, x := range d.of(llm.DeltaText) {
		joined += x.Text
	}
	if text != "Hello there, this answer comes in several deltas." || joined != text || len(d.of(llm.DeltaText)) < 2 {
		t.Errorf("text %q from deltas %q", text, joined)
	}
	if resp.Stop != llm.StopEnd || resp.Usage.InputTokens != 11 || resp.Usage.OutputTokens != 7 || resp.Model != Model {
		t.Errorf("stop %q usage %+v model %q", resp.Stop, resp.Usage, resp.Model)
	}
	if resp.Message.Role != llm.Assistant {
		t.Errorf("role %q", resp.Message.Role)
	}
}

// calls checks a turn of tool calls and their results' round trip.
func (e *env) calls(t *testing.T, prompt string, files []string, final, effort string, f Features) {
	p := e.provider(llm.Timeouts{})
	req := request(prompt)
	req.Effort = effort
	var d deltas
	resp, err := p.Stream(context.Background(), req, d.add)
	if err != nil {
		t.Fatal(err)
	}
	uses := resp.Message.ToolUses()
	if resp.Stop != llm.StopToolUse || len(uses) != len(files) || len(d.of(llm.DeltaToolUse)) != len(files) {
		t.Fatalf("stop %q, calls %+v, deltas %+v", resp.Stop, uses, d)
	}
	var ids []string
	results := llm.Message{Role: llm.User}
	for i, u := range uses {
		var in struct {
			FilePath string `json:"file_path"`
		}
		if err := json.Unmarshal(u.Input, &in); err != nil || u.Name != "Read" || in.FilePath != files[i] || u.ID == "" {
			t.Errorf("call %d: %+v (%v)", i, u, err)
		}
		if slices.Contains(ids, u.ID) {
			t.Errorf("call %d: ID %q repeated", i, u.ID)
		}
		ids = append(ids, u.ID)
		results.Content = append(results.Content, llm.Block{Type: llm.BlockToolResult, ToolUseID: u.ID,
			Content: "contents of " + files[i], IsError: i == 1})
	}
	var sig string
	if effort != "" {
		th := resp.Message.Content[0]
		if th.Type != llm.BlockThinking || th.Text != "The user wants x read, so read it." || len(d.of(llm.DeltaThinking)) == 0 {
			t.Errorf("thinking %+v, deltas %+v", th, d)
		}
		if sig = th.Signature; f.Signatures && sig == "" {
			// Gemini puts its signature on the call instead
			sig = uses[0].Signature
		}
		if f.Signatures && sig == "" {
			t.Errorf("no signature in %+v", resp.Message.Content)
		}
	}
	req.Messages = append(req.Messages, resp.Message, results)
	resp2, err := p.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp2.Message.Text(); got != final {
		t.Errorf("after the results: %q, want %q", got, final)
	}
	body := e.lastBody()
	for i := range files {
		if f.IDsOnWire && strings.Count(body, ids[i]) < 2 {
			t.Errorf("call ID %q not sent back with its result:\n%s", ids[i], body)
		}
		if !strings.Contains(body, "contents of "+files[i]) {
			t.Errorf("result %d not sent:\n%s", i, body)
		}
	}
	if sig != "" && !strings.Contains(body, sig) {
		t.Errorf("signature %q not sent back:\n%s", sig, body)
	}
}

// retrying wraps the provider, recording retries and not sleeping.
func (e *env) retrying(to llm.Timeouts, infos *[]llm.RetryInfo) *llm.Retrying {
	return &llm.Retrying{Provider: e.provider(to), MaxRetries: 2,
		OnRetry: func(i llm.RetryInfo) { *infos = append(*infos, i) },
		Sleep:   func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}
}

func (e *env) rateLimit(t *testing.T) {
	var infos []llm.RetryInfo
	resp, err := e.retrying(llm.Timeouts{}, &infos).Stream(context.Background(), request("rate limited"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "After the 429." || len(infos) != 1 {
		t.Fatalf("%q after retries %+v", resp.Message.Text(), infos)
	}
	if i := infos[0]; i.Attempt != 1 || i.Status != 429 || i.Delay != 20*time.Millisecond || llm.ClassOf(i.Err) != llm.ClassRateLimited {
		t.Errorf("retry %+v", i)
	}
}

func (e *env) overloaded(t *testing.T) {
	var infos []llm.RetryInfo
	r := e.retrying(llm.Timeouts{}, &infos)
	r.Fallback = "fallback-model"
	resp, err := r.Stream(context.Background(), request("overloaded"), nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := e.records("overloaded", 2)
	if resp.Message.Text() != "From the fallback." || len(infos) != 1 || infos[0].Model != "fallback-model" ||
		len(recs) != 2 || recs[0].Model != Model || recs[1].Model != "fallback-model" {
		t.Errorf("%q after retries %+v, requests %+v", resp.Message.Text(), infos, recs)
	}
}

// retried checks a failure mid-stream that the next attempt gets past.
func (e *env) retried(t *testing.T, rule string, want error, to llm.Timeouts) {
	var infos []llm.RetryInfo
	resp, err := e.retrying(to, &infos).Stream(context.Background(), request(rule), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || !errors.Is(infos[0].Err, want) || len(e.records(rule, 2)) != 2 {
		t.Errorf("retries %+v, want one for %v", infos, want)
	}
	if !strings.HasSuffix(resp.Message.Text(), "this time.") {
		t.Errorf("text %q", resp.Message.Text())
	}
}

// slowChunks: an answer whose chunks come slower than the stall timeout
// stalls every time; the retries run out and the error says so.
func (e *env) slowChunks(t *testing.T) {
	var infos []llm.RetryInfo
	r := e.retrying(llm.Timeouts{Stall: 300 * time.Millisecond}, &infos)
	r.MaxRetries = 1
	_, err := r.Stream(context.Background(), request("slow chunks"), nil)
	if !errors.Is(err, llm.ErrStalled) || llm.ClassOf(err) != llm.ClassTimeout || len(infos) != 1 {
		t.Errorf("error %v after retries %+v", err, infos)
	}
}

func (e *env) auth(t *testing.T) {
	var infos []llm.RetryInfo
	_, err := e.retrying(llm.Timeouts{}, &infos).Stream(context.Background(), request("no key"), nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Status != 401 || llm.ClassOf(err) != llm.ClassAuth || !strings.Contains(ae.Message, "invalid x-api-key") {
		t.Fatalf("error %v", err)
	}
	if len(infos) != 0 || len(e.records("auth", 1)) != 1 {
		t.Errorf("retried a 401: %+v", infos)
	}
}

// cancel ends the context while Retrying waits out a 30 s retry-after.
func (e *env) cancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var infos []llm.RetryInfo
	r := &llm.Retrying{Provider: e.provider(llm.Timeouts{}), MaxDelay: time.Minute,
		OnRetry: func(i llm.RetryInfo) { infos = append(infos, i); cancel() }}
	start := time.Now()
	_, err := r.Stream(ctx, request("wait long"), nil)
	if !errors.Is(err, context.Canceled) || len(infos) != 1 || infos[0].Delay != 30*time.Second {
		t.Fatalf("error %v, retries %+v", err, infos)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("returned after %v", d)
	}
}
