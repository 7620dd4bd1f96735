package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/csa-dev/csa/internal/cli/root"
	"github.com/csa-dev/csa/internal/csaagent/cli"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/testkit/fakeagent"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
	"github.com/csa-dev/csa/internal/testkit/scripttest"
)

// TestMain makes the test binary double as csa-agent, so scripts run the
// real program as a separate process, and as csa and the fake agent, for
// the /review command (csa review runs fake reviewers).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"csa-agent": func() { os.Exit(cli.Main(os.Args[1:])) },
		"csa":       func() { os.Exit(root.Entry()) },
		"fakeagent": func() { os.Exit(fakeagent.Main()) },
	})
}

// apis are the four provider APIs, each with the model spec and the
// environment that point csa-agent at the scripted model server.
var apis = []struct {
	name, model string
	env         func(url string) []string
}{
	{"anthropic", "anthropic/claude-test", func(u string) []string {
		return []string{"ANTHROPIC_BASE_URL=" + u, "ANTHROPIC_API_KEY=test-key"}
	}},
	{"responses", "openai/gpt-test", func(u string) []string {
		return []string{"OPENAI_BASE_URL=" + u + "/v1", "OPENAI_API_KEY=test-key"}
	}},
	{"chat", "local/chat-test", func(string) []string { return nil }},
	{"gemini", "gemini/gemini-test", func(u string) []string {
		return []string{"GOOGLE_GEMINI_BASE_URL=" + u, "GEMINI_API_KEY=test-key"}
	}},
}

// TestScripts runs testdata/agent once per provider API: the same tasks
// through Anthropic Messages, OpenAI Responses, Chat Completions and Gemini.
func TestScripts(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			testscript.Run(t, testscript.Params{
				Dir:                 filepath.Join("..", "..", "testdata", "agent"),
				RequireExplicitExec: true,
				Setup: func(env *testscript.Env) error {
					url, stop, err := startModelServer(env.WorkDir)
					if err != nil {
						return err
					}
					env.Defer(stop)
					env.Setenv("API", api.name)
					env.Setenv("MODEL", api.model)
					env.Setenv("MODEL_URL", url)
					env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
					env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, "state"))
					env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "config"))
					// The chat provider is a configured one, as a local
					// server would be.
					cfg := "[providers.local]\napi = \"chat\"\nbase_url = \"" + url + "/v1\"\n"
					if err := writeFile(filepath.Join(env.WorkDir, "config", "csa-agent", "config.toml"), cfg); err != nil {
						return err
					}
					// csa (for /review) runs every tool as the fake agent.
					env.Setenv("CSA_CONFIG_HOME", filepath.Join(env.WorkDir, "csa-config"))
					if err := writeFile(filepath.Join(env.WorkDir, "csa-config", "config.toml"), fakeagent.Config("fakeagent")); err != nil {
						return err
					}
					for _, kv := range api.env(url) {
						k, v, _ := strings.Cut(kv, "=")
						env.Setenv(k, v)
					}
					return nil
				},
				Condition: func(cond string) (bool, error) {
					if v, ok := strings.CutPrefix(cond, "api:"); ok {
						return v == api.name, nil
					}
					return false, fmt.Errorf("unknown condition %q", cond)
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"overlap":   cmdOverlap,
					"waitevent": cmdWaitEvent,
					"modelsaw":  cmdModelSaw,
					"exits":     scripttest.Exits,
					"hookinput": cmdHookInput,
					"mcpbin":    cmdMCPBin,
					"mcphttp":   cmdMCPHTTP,
					"mcpleft":   cmdMCPLeft,
				},
			})
		})
	}
}

// servers are the scripts' model servers by work directory, for modelsaw.
var servers sync.Map

// startModelServer serves WORK/model.toml (every script has one) and logs
// requests to WORK/requests.jsonl for modelsaw.
func startModelServer(work string) (string, func(), error) {
	script, err := modelserver.Load(filepath.Join(work, "model.toml"))
	if err != nil {
		return "", nil, err
	}
	srv := modelserver.New(script, modelserver.Options{LogPath: filepath.Join(work, "requests.jsonl")})
	url, err := srv.Start()
	if err != nil {
		return "", nil, err
	}
	servers.Store(work, srv)
	return url, func() { servers.Delete(work); srv.Close() }, nil
}

// events reads the tool events of session id from the conversation store.
func events(ts *testscript.TestScript, id string) []store.Record {
	path := store.Path(filepath.Join(ts.Getenv("XDG_STATE_HOME"), "csa-agent", "sessions"), id)
	f, err := os.Open(path)
	ts.Check(err)
	defer f.Close()
	var out []store.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r store.Record
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Kind == store.KindEvent {
			out = append(out, r)
		}
	}
	return out
}

// overlap SESSION TOOL N: N calls of TOOL all started before any of them
// finished (they ran at once). With !: no two calls of TOOL overlapped.
func cmdOverlap(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: overlap SESSION TOOL N")
	}
	var n int
	fmt.Sscan(args[2], &n)
	type span struct{ start, end time.Time }
	spans := map[string]*span{}
	for _, r := range events(ts, args[0]) {
		e := r.Event
		if e.ToolName != args[1] {
			continue
		}
		if spans[e.ToolID] == nil {
			spans[e.ToolID] = &span{}
		}
		switch e.Kind {
		case "tool_started":
			spans[e.ToolID].start = e.Time
		case "tool_finished":
			spans[e.ToolID].end = e.Time
		}
	}
	var list []*span
	for _, s := range spans {
		if s.start.IsZero() || s.end.IsZero() {
			ts.Fatalf("a %s call without start or end", args[1])
		}
		list = append(list, s)
	}
	if len(list) != n {
		ts.Fatalf("%d calls of %s, want %d", len(list), args[1], n)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].start.Before(list[j].start) })
	overlapping := 0
	firstEnd := list[0].end
	for _, s := range list {
		if s.start.Before(firstEnd) {
			overlapping++
		}
		if s.end.Before(firstEnd) {
			firstEnd = s.end
		}
	}
	for i := 1; i < len(list); i++ {
		if neg && list[i].start.Before(list[i-1].end) {
			ts.Fatalf("%s calls overlapped", args[1])
		}
	}
	if !neg && overlapping != n {
		ts.Fatalf("only %d of %d %s calls ran at once", overlapping, n, args[1])
	}
}

// waitevent SESSION KIND [TOOL [N]]: wait (up to 60 s) until the session
// has recorded N (default 1) such events.
func cmdWaitEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 4 {
		ts.Fatalf("usage: waitevent SESSION KIND [TOOL [N]]")
	}
	want := 1
	if len(args) == 4 {
		fmt.Sscan(args[3], &want)
	}
	deadline := time.Now().Add(60 * time.Second)
	path := store.Path(filepath.Join(ts.Getenv("XDG_STATE_HOME"), "csa-agent", "sessions"), args[0])
	seen := 0
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			seen = 0
			for _, r := range events(ts, args[0]) {
				if string(r.Event.Kind) == args[1] && (len(args) < 3 || r.Event.ToolName == args[2]) {
					seen++
				}
			}
			if seen >= want {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%d of %d %v events within 60 s", seen, want, args[1:])
}

// modelsaw REGEXP: some request the model server answered had a user text,
// answer or rule matching REGEXP... in its record.
func cmdModelSaw(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: modelsaw REGEXP")
	}
	re := regexp.MustCompile(args[0])
	if srv, ok := servers.Load(ts.Getenv("WORK")); ok && !srv.(*modelserver.Server).Settle(time.Minute) {
		ts.Fatalf("the model server is still answering after a minute")
	}
	data, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), "requests.jsonl"))
	ts.Check(err)
	if re.Match(data) == neg {
		ts.Logf("model server records:\n%s", data)
		ts.Fatalf("model server records match %q: %v, want %v", args[0], neg, !neg)
	}
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// hookinput FILE EVENT [FIELD[=VALUE]]...: FILE (JSON lines, as hooks
// appended their stdin) has a line for EVENT with every FIELD set (not
// null, "" or false) or equal to VALUE (a string's text, any other
// value's JSON). FIELD may be a path: tool_input.command. With !: no line
// for EVENT has them all.
func cmdHookInput(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: hookinput FILE EVENT [FIELD[=VALUE]]...")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		var in map[string]any
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			ts.Fatalf("%s: not JSON: %q", args[0], line)
		}
		if in["hook_event_name"] != args[1] {
			continue
		}
		if hasFields(in, args[2:]) {
			found = true
			break
		}
	}
	if found == neg {
		ts.Logf("%s:\n%s", args[0], data)
		ts.Fatalf("a %s input with %q: %v, want %v", args[1], args[2:], found, !neg)
	}
}

func hasFields(in map[string]any, fields []string) bool {
	for _, f := range fields {
		path, want, withValue := strings.Cut(f, "=")
		var v any = in
		for _, k := range strings.Split(path, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				return false
			}
			v = m[k]
		}
		var got string
		switch x := v.(type) {
		case string:
			got = x
		default:
			b, _ := json.Marshal(x)
			got = string(b)
		}
		switch {
		case withValue && got != want:
			return false
		case !withValue && (v == nil || v == "" || v == false):
			return false
		}
	}
	return true
}
