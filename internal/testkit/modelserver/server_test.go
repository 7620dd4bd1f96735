package modelserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDefaultAnswerIsLogged(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "requests.jsonl")
	var human syncBuffer
	srv := New(&Script{}, Options{LogPath: logPath, Log: &human})
	base, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	resp := post(t, base+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"anything"}]}`)
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if get(m, "content", 0, "text") != DefaultText {
		t.Errorf("default answer %v", m)
	}
	post(t, base+"/nowhere", `{}`)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	recs := srv.Requests()
	if len(recs) != 2 || recs[0].Matched || recs[0].Answer != "default" || recs[1].Status != 404 || recs[1].Matched {
		t.Fatalf("records %+v", recs)
	}
	if got := strings.Count(human.String(), "UNMATCHED"); got != 2 {
		t.Errorf("human log flags %d requests:\n%s", got, human.String())
	}
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines int
	for sc.Scan() {
		var rec RequestRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		lines++
	}
	if lines != 2 {
		t.Errorf("%d log lines", lines)
	}
}

func TestExhaustedRule(t *testing.T) {
	srv, base := startServer(t, wireScript)
	body := `{"model":"m","messages":[{"role":"user","content":"please run"},
	 {"role":"assistant","content":"a"},{"role":"user","content":[{"type":"tool_result","content":"x"}]},
	 {"role":"assistant","content":"b"},{"role":"user","content":[{"type":"tool_result","content":"y"}]}]}`
	var m map[string]any
	if err := json.NewDecoder(post(t, base+"/v1/messages", body).Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if get(m, "content", 0, "text") != DefaultText {
		t.Errorf("answer %v", m)
	}
	if rec := srv.Requests()[0]; rec.Answer != "exhausted" || rec.Turn != 2 || rec.Rule != "shell" {
		t.Errorf("record %+v", rec)
	}
}

func TestSideEndpoints(t *testing.T) {
	srv, base := startServer(t, wireScript)
	req, _ := http.NewRequest(http.MethodHead, base+"/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD /: %v %v", resp, err)
	}
	var m map[string]any
	if err := json.NewDecoder(post(t, base+"/v1/messages/count_tokens?beta=true", `{"messages":[]}`).Body).Decode(&m); err != nil || m["input_tokens"] == nil {
		t.Errorf("count_tokens %v %v", m, err)
	}
	resp = post(t, base+"/v1/messages", `{not json`)
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != 400 || get(m, "error", "type") != "invalid_request_error" {
		t.Errorf("bad request: %d %v %v", resp.StatusCode, m, err)
	}
	recs := srv.Requests()
	if recs[0].Answer != "probe" || recs[1].Answer != "count_tokens" || recs[2].Problem == "" {
		t.Errorf("records %+v", recs)
	}
}

func TestNoKnownTool(t *testing.T) {
	srv, base := startServer(t, wireScript)
	var m map[string]any
	body := `{"model":"m","messages":[{"role":"user","content":"please run"}],"tools":[{"name":"Read"}]}`
	if err := json.NewDecoder(post(t, base+"/v1/messages", body).Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	text, _ := get(m, "content", 0, "text").(string)
	if !strings.Contains(text, "no known write or shell tool") || m["stop_reason"] != "end_turn" {
		t.Errorf("answer %v", m)
	}
	if rec := srv.Requests()[0]; rec.Problem == "" {
		t.Errorf("record %+v", rec)
	}
}

// Concurrent agents share one server: each conversation gets the step its
// own history calls for, whatever the others do.
func TestConcurrentConversations(t *testing.T) {
	_, base := startServer(t, wireScript)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			history := ""
			want := "tool_use"
			if i%2 == 1 {
				history = `,{"role":"assistant","content":"x"},{"role":"user","content":[{"type":"tool_result","content":"ok"}]}`
				want = "end_turn"
			}
			body := `{"model":"m","messages":[{"role":"user","content":"please run"}` + history + `],"tools":[{"name":"Bash"}]}`
			resp, err := http.Post(base+"/v1/messages", "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			var m map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
				errs <- err
				return
			}
			if m["stop_reason"] != want {
				errs <- fmt.Errorf("conversation %d: stop_reason %v, want %s", i, m["stop_reason"], want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestScriptBuiltInGo(t *testing.T) {
	script := &Script{Rules: []Rule{{
		Regexp: `^go \w+$`,
		Steps:  []Step{{Call: &ToolCall{Name: "custom_tool", Args: map[string]any{"x": 1}}}},
	}}}
	srv := New(script, Options{})
	base, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var m map[string]any
	body := `{"model":"m","messages":[{"role":"user","content":"go there"}]}`
	if err := json.NewDecoder(post(t, base+"/v1/chat/completions", body).Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	call := get(m, "choices", 0, "message", "tool_calls", 0, "function")
	if get(call, "name") != "custom_tool" || get(call, "arguments") != `{"x":1}` {
		t.Errorf("call %v", m)
	}
	if _, err := New(&Script{Rules: []Rule{{Regexp: "("}}}, Options{}).Start(); err == nil {
		t.Error("an invalid script started")
	}
}

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.toml")
	if err := os.WriteFile(path, []byte(wireScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, "127.0.0.1:0", path, "", func(u string) { urls <- u }) }()
	select {
	case u := <-urls:
		resp := post(t, u+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"please run"}]}`)
		if resp.StatusCode != 200 {
			t.Errorf("status %d", resp.StatusCode)
		}
	case err := <-done:
		t.Fatalf("Run returned early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run never became ready")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), "", path+".missing", "", nil); err == nil {
		t.Error("Run with a missing script succeeded")
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Settle waits for requests being answered: while a stream stalls it does
// not settle; once the client hangs up it does, with the request recorded.
func TestSettle(t *testing.T) {
	script, err := Parse([]byte("[[rule]]\n[[rule.step]]\nerror = 'stall'\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(script, Options{})
	base, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !srv.Settle(time.Second) {
		t.Fatal("an idle server does not settle")
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/messages",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Settle(100 * time.Millisecond) {
		t.Fatal("settled while a stream was being answered")
	}
	cancel()
	resp.Body.Close()
	if !srv.Settle(time.Minute) {
		t.Fatal("not settled after the client hung up")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d records once settled, want 1", n)
	}
}
