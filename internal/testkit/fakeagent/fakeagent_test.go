package fakeagent

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/session"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ;\n ; ", nil},
		{"echo a", []string{"echo a"}},
		{"echo a; echo b", []string{"echo a", "echo b"}},
		{"echo a\necho b\n", []string{"echo a", "echo b"}},
		{"  echo a  ;;  exit 3 ", []string{"echo a", "exit 3"}},
		{`echo "a; b"; echo c`, []string{`echo "a; b"`, "echo c"}},
		{"echo 'a\nb'; echo c", []string{"echo 'a\nb'", "echo c"}},
		{`csa run codex "echo x; echo 'y; z'"; echo done`, []string{`csa run codex "echo x; echo 'y; z'"`, "echo done"}},
		{`csa run codex 'echo "in; ner"; exit 1'; exit 2`, []string{`csa run codex 'echo "in; ner"; exit 1'`, "exit 2"}},
		{`echo "unterminated; still one`, []string{`echo "unterminated; still one`}},
		{"echo ü; echo ✓", []string{"echo ü", "echo ✓"}},
	}
	for _, tt := range tests {
		if got := split(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFields(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"echo a b", []string{"echo", "a", "b"}},
		{"echo\ta  \t b", []string{"echo", "a", "b"}},
		{`csa run codex "echo x; echo y"`, []string{"csa", "run", "codex", "echo x; echo y"}},
		{`csa run codex "echo 'a b'; exit 1"`, []string{"csa", "run", "codex", "echo 'a b'; exit 1"}},
		{`csa run codex 'say "hi there"'`, []string{"csa", "run", "codex", `say "hi there"`}},
		{`a "" b`, []string{"a", "", "b"}},
		{`ab"c d"e`, []string{"abc de"}},
		{`x 'it''s'`, []string{"x", "its"}},
		{`write /tmp/f "two words"`, []string{"write", "/tmp/f", "two words"}},
		{`echo "open`, []string{"echo", "open"}},
	}
	for _, tt := range tests {
		if got := fields(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("fields(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUnquote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"a b"`, "a b"},
		{`'a b'`, "a b"},
		{`"a b'`, `"a b'`},
		{`"`, `"`},
		{`""`, ""},
		{`plain`, "plain"},
		{`"a" "b"`, `a" "b`},
	}
	for _, tt := range tests {
		if got := unquote(tt.in); got != tt.want {
			t.Errorf("unquote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// withStdin runs fn with os.Stdin reading content.
func withStdin(t *testing.T, content string, fn func()) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stdin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	fn()
}

func TestParseArgs(t *testing.T) {
	const stdin = "prompt from stdin"
	tests := []struct {
		name    string
		tool    string
		args    []string
		want    invocation
		wantErr bool
	}{
		{"no args", "", nil, invocation{prompt: stdin, via: "stdin"}, false},
		{"plain prompt", "", []string{"hello"}, invocation{prompt: "hello", via: "argv"}, false},
		{"dash reads stdin", "codex", []string{"exec", "--json", "-"}, invocation{prompt: stdin, via: "stdin"}, false},
		{"claude", "claude-code", []string{"-p", "--output-format", "stream-json", "--verbose", "--model", "opus", "hi"},
			invocation{prompt: "hi", via: "argv", model: "opus"}, false},
		{"claude long", "claude-code", []string{"-p", "--output-format", "stream-json", "--verbose", "--model", "opus"},
			invocation{prompt: stdin, via: "stdin", model: "opus"}, false},
		{"claude new session", "claude-code", []string{"-p", "--session-id", "u-1", "hi"},
			invocation{prompt: "hi", via: "argv", session: "u-1"}, false},
		{"claude resume", "claude-code", []string{"-p", "--resume", "r-1", "again"},
			invocation{prompt: "again", via: "argv", session: "r-1", resumed: true}, false},
		{"codex", "codex", []string{"exec", "--json", "--skip-git-repo-check", "-m", "gpt", "-c", `model_reasoning_effort="low"`, "do it"},
			invocation{prompt: "do it", via: "argv", model: "gpt"}, false},
		{"codex resume", "codex", []string{"exec", "resume", "--json", "--skip-git-repo-check", "th-1", "more"},
			invocation{prompt: "more", via: "argv", session: "th-1", resumed: true}, false},
		{"codex resume long", "codex", []string{"exec", "resume", "--json", "th-1", "-"},
			invocation{prompt: stdin, via: "stdin", session: "th-1", resumed: true}, false},
		{"codex resume without id", "codex", []string{"exec", "resume"}, invocation{}, true},
		{"gemini", "gemini-cli", []string{"--output-format", "stream-json", "-m", "g", "-p", "ask"},
			invocation{prompt: "ask", via: "argv", model: "g"}, false},
		{"gemini prompt that looks like a flag", "gemini-cli", []string{"-p", "-x"},
			invocation{prompt: "-x", via: "argv"}, false},
		{"gemini long", "gemini-cli", []string{"--output-format", "stream-json", "-p", " "},
			invocation{prompt: stdin, via: "stdin"}, false},
		{"gemini resume", "gemini-cli", []string{"--resume", "g-1", "-p", "ask"},
			invocation{prompt: "ask", via: "argv", session: "g-1", resumed: true}, false},
		{"opencode", "opencode", []string{"run", "--format", "json", "-m", "a/b", "--variant", "high", "--auto", "q"},
			invocation{prompt: "q", via: "argv", model: "a/b"}, false},
		{"opencode long", "opencode", []string{"run", "--format", "json", "-m", "a/b"},
			invocation{prompt: stdin, via: "stdin", model: "a/b"}, false},
		{"opencode resume", "opencode", []string{"run", "-s", "ses_1", "q"},
			invocation{prompt: "q", via: "argv", session: "ses_1", resumed: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got invocation
			var err error
			withStdin(t, stdin, func() { got, err = parseArgs(tt.tool, tt.args) })
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseArgs(%q) = %+v, want an error", tt.args, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("parseArgs(%s, %q) = %+v, want %+v", tt.tool, tt.args, got, tt.want)
			}
		})
	}
}

// TestParseArgsUnderstandsBuild checks the fake against the real argv the
// adapters build: whatever csa passes, the fake finds the prompt and the
// session.
func TestParseArgsUnderstandsBuild(t *testing.T) {
	short := "echo hello; exit 0"
	long := "echo long\n" + strings.Repeat("# padding\n", agents.MaxArgvPrompt/10+1)
	for _, tool := range agents.All {
		for _, prompt := range []string{short, long} {
			for _, req := range []agents.Request{
				{},
				{Model: "m-1", Effort: "high", Yolo: true},
				{ResumeID: "sess-1", Model: "m-1"},
				{NewSessionID: "new-1"},
			} {
				req.Prompt = prompt
				inv, err := agents.For(tool).Build(req)
				if err != nil {
					t.Fatal(err)
				}
				var got invocation
				withStdin(t, string(inv.Stdin), func() { got, err = parseArgs(string(tool), inv.Args) })
				if err != nil {
					t.Fatalf("%s %q: %v", tool, inv.Args, err)
				}
				wantVia := "argv"
				if inv.Stdin != nil {
					wantVia = "stdin"
				}
				if got.prompt != prompt || got.via != wantVia {
					t.Errorf("%s %.120q: prompt %d bytes via %s, want %d bytes via %s",
						tool, inv.Args, len(got.prompt), got.via, len(prompt), wantVia)
				}
				if got.session != inv.ProviderSessionID {
					t.Errorf("%s %.120q: session %q, want %q", tool, inv.Args, got.session, inv.ProviderSessionID)
				}
				if got.resumed != (req.ResumeID != "") {
					t.Errorf("%s %.120q: resumed = %v", tool, inv.Args, got.resumed)
				}
			}
		}
	}
}

// captureStdout returns what fn writes to os.Stdout.
func captureStdout(t *testing.T, fn func()) []byte {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	old := os.Stdout
	os.Stdout = w
	func() {
		defer func() { os.Stdout = old }()
		fn()
	}()
	w.Close()
	return <-got
}

// TestEmitterSpeaksEachTool feeds what the fake prints, as each tool, to
// that tool's real parser.
func TestEmitterSpeaksEachTool(t *testing.T) {
	for _, tool := range agents.All {
		t.Run(string(tool), func(t *testing.T) {
			out := captureStdout(t, func() {
				e := newEmitter(string(tool))
				e.start("sid-1")
				e.text("hello")
				e.text("world")
				e.end()
			})
			p := agents.For(tool).NewParser()
			sc := bufio.NewScanner(bytes.NewReader(out))
			var types []string
			for sc.Scan() {
				for _, ev := range p.Feed(sc.Bytes()) {
					types = append(types, ev.Type)
				}
			}
			for _, ty := range types {
				if ty == agents.EvUnparsed {
					t.Errorf("the parser could not read a line of the fake's output:\n%s", out)
				}
			}
			o := p.Finish(0, "")
			if o.Failure != nil {
				t.Errorf("Failure = %+v", o.Failure)
			}
			if !strings.HasSuffix(strings.TrimSpace(o.Result), "world") {
				t.Errorf("Result = %q, want it to end with the last text", o.Result)
			}
			if o.ProviderSessionID != "sid-1" {
				t.Errorf("ProviderSessionID = %q, want sid-1", o.ProviderSessionID)
			}
			if o.Usage == nil || o.Usage.InputTokens != 12 || o.Usage.OutputTokens != 7 {
				t.Errorf("Usage = %+v, want 12 in, 7 out", o.Usage)
			}
		})
		t.Run(string(tool)+"/fail", func(t *testing.T) {
			out := captureStdout(t, func() {
				e := newEmitter(string(tool))
				e.start("sid-2")
				e.fail("429 Too Many Requests")
			})
			p := agents.For(tool).NewParser()
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				p.Feed(sc.Bytes())
			}
			o := p.Finish(1, "")
			if o.Failure == nil || o.Failure.Class != session.FailRateLimited {
				t.Errorf("Failure = %+v, want rate_limited from the fake's error", o.Failure)
			}
		})
	}
}
