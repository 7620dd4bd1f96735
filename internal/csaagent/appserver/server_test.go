package appserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/thread"
)

// blockingHost is a thread.Host whose Start waits for release: it holds a
// request in flight for as long as a test needs.
type blockingHost struct {
	entered chan struct{}
	release chan struct{}
}

func (h *blockingHost) Start(ctx context.Context, o thread.Options) (thread.Thread, error) {
	h.entered <- struct{}{}
	<-h.release
	return idleThread{}, nil
}
func (h *blockingHost) Resume(context.Context, string, thread.Options) (thread.Thread, error) {
	return nil, os.ErrNotExist
}
func (h *blockingHost) List(context.Context) ([]thread.Info, error) { return nil, nil }
func (h *blockingHost) Models() []string                            { return []string{"p/m"} }
func (h *blockingHost) Config() map[string]any                      { return map[string]any{} }

type idleThread struct{}

func (idleThread) ID() string    { return "t1" }
func (idleThread) Model() string { return "p/m" }
func (idleThread) Cwd() string   { return "/" }
func (idleThread) Close()        {}
func (idleThread) Run(context.Context, string, event.Sink, thread.Approver) thread.Outcome {
	return thread.Outcome{End: "done"}
}

// client drives a server over pipes.
type client struct {
	t    *testing.T
	in   io.WriteCloser
	msgs chan map[string]any
	done chan error
}

func serve(t *testing.T, o Options) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, msgs: make(chan map[string]any, 100), done: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), o, inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			c.msgs <- m
		}
		close(c.msgs)
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *client) write(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next is the next message the server sent.
func (c *client) next() map[string]any {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatal("no message from the server within 30 s")
	}
	return nil
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

func errorMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

// Bad input gets the JSON-RPC error it calls for, and the connection
// goes on; end of input ends the server without an error.
func TestBadInput(t *testing.T) {
	c := serve(t, Options{Host: &blockingHost{}, Version: "test", MaxLine: 1000})
	cases := []struct {
		line string
		code float64
		msg  string
	}{
		{`{"id":1,"method":"thread/list"}`, codeInvalidRequest, "not initialized"},
		{`{"id":2,"method":"initialize","params":{"clientInfo":{"version":"1"}}}`, codeInvalidParams, "clientInfo.name is required"},
		{`{"id":3,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`, 0, ""},
		{`{"id":4,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`, codeInvalidRequest, "already initialized"},
		{`{not json`, codeParse, "not a JSON object"},
		{`{"id":"x","method":"no/such"}`, codeMethodNotFound, `unknown method "no/such"`},
		{`{"id":5,"method":"turn/start","params":{"threadId":7}}`, codeInvalidParams, "invalid params"},
		{`{"id":6,"method":"turn/start","params":{"threadId":"t1","input":[{"type":"image","url":"u"}]}}`, codeInvalidParams, `type "image" is not supported`},
		{`{"id":7,"method":"turn/start","params":{"threadId":"nope","input":[{"type":"text","text":"hi"}]}}`, codeInvalidRequest, "thread/start or thread/resume it first"},
		{`{"id":8,"method":"thread/start","params":{"approvalPolicy":"sometimes"}}`, codeInvalidParams, `approvalPolicy "sometimes"`},
		{`{"id":9,"method":"thread/start","params":{"cwd":"relative/dir"}}`, codeInvalidParams, "absolute path"},
		{`{"id":10,"method":"thread/resume","params":{"threadId":"missing"}}`, codeInvalidRequest, "thread/resume missing"},
		{`{"jsonrpc":"1.0","id":11,"method":"thread/list"}`, codeInvalidRequest, "only 2.0"},
		{`{"id":{"a":1},"method":"thread/list"}`, codeInvalidRequest, "id must be a string or a number"},
		{`{"jsonrpc":"2.0","id":12,"method":"model/list","params":{"cursor":"zzz"}}`, codeInvalidParams, "unknown cursor"},
		{`{"id":13,"method":"thread/list","params":{}}` + strings.Repeat(" ", 2000), codeParse, "line longer than 1000 bytes"},
		{`{"jsonrpc":"2.0","id":14,"method":"model/list"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":15,"method":"models/list","params":{"cursor":"zzz"}}`, codeInvalidParams, "unknown cursor"},
	}
	for _, tc := range cases {
		c.write(tc.line)
		m := c.next()
		if got := errorCode(m); got != tc.code || !strings.Contains(errorMessage(m), tc.msg) {
			t.Errorf("%s\n  answer %v, want code %v with %q", tc.line, m, tc.code, tc.msg)
		}
	}
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("Serve at end of input: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return at end of input")
	}
}

// Beyond MaxRequests in flight a request is refused with Codex's -32001
// and retryable data; the one in flight still gets its answer.
func TestOverloadRefusesRequests(t *testing.T) {
	h := &blockingHost{entered: make(chan struct{}, 1), release: make(chan struct{})}
	c := serve(t, Options{Host: h, MaxRequests: 1})
	c.write(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`)
	if m := c.next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	c.write(`{"id":2,"method":"thread/start","params":{}}`)
	<-h.entered // thread/start is in flight
	c.write(`{"id":3,"method":"thread/list","params":{}}`)
	m := c.next()
	data, _ := m["error"].(map[string]any)["data"].(map[string]any)
	if errorCode(m) != codeOverloaded || m["id"] != 3.0 || data["retryable"] != true || data["reason"] != "requestCapacity" {
		t.Fatalf("over the bound: %v", m)
	}
	close(h.release)
	if m := c.next(); m["id"] != 2.0 || m["result"] == nil {
		t.Fatalf("thread/start after release: %v", m)
	}
	if m := c.next(); m["method"] != "thread/started" {
		t.Fatalf("after thread/start's answer: %v", m)
	}
	c.write(`{"id":4,"method":"thread/list","params":{}}`)
	if m := c.next(); m["id"] != 4.0 || m["error"] != nil {
		t.Fatalf("a request once the bound frees: %v", m)
	}
}

// The committed schema is the one the code generates.
func TestSchemaIsCommitted(t *testing.T) {
	got, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "..", "docs", "app-server-schema.json")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("docs/app-server-schema.json is not what the protocol types generate; update it with\n" +
			"  go run ./cmd/csa-agent app-server generate-json-schema > docs/app-server-schema.json")
	}
	var doc map[string]any
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	reqs := doc["clientRequests"].(map[string]any)
	for _, m := range clientRequests {
		if reqs[m.name] == nil {
			t.Errorf("the schema lacks %s", m.name)
		}
	}
}
