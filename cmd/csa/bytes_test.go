package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/verbatim"
)

// allBytes is every byte value from..255, in order, minus those in skip.
func allBytes(from int, skip string) []byte {
	var b []byte
	for i := from; i < 256; i++ {
		if !strings.ContainsRune(skip, rune(i)) {
			b = append(b, byte(i))
		}
	}
	return b
}

// recorded is what `csa inspect --json` says of the fields a user
// controls, with the exact bytes of raw_bytes put back.
type recorded struct {
	ID       string            `json:"id"`
	State    string            `json:"state"`
	Model    string            `json:"model"`
	Cwd      string            `json:"cwd"`
	Args     []string          `json:"args"`
	Result   string            `json:"result"`
	Damaged  []string          `json:"damaged"`
	RawBytes map[string]string `json:"raw_bytes"`
}

func (e *env) inspect(id string) recorded {
	e.t.Helper()
	var r recorded
	if _, err := verbatim.Unmarshal([]byte(e.csa(0, "inspect", "--json", id)), &r); err != nil {
		e.t.Fatal(err)
	}
	return r
}

// Every byte value, in a prompt (given as an argument, on stdin, in a file,
// to a detached run), a working directory and a model, reaches the agent
// and the record exactly, and the session stays readable by every command.
func TestAnyBytesRoundTrip(t *testing.T) {
	e := newEnv(t)
	proj := filepath.Join(e.dir, "proj")
	cwd := filepath.Join(proj, string(allBytes(1, "/")))
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	model := string(allBytes(1, ""))
	argvPrompt := "digest\n" + string(allBytes(1, "")) // no NUL: it can go in argv
	nulPrompt := "digest\n" + string(allBytes(0, ""))  // a NUL: it goes on stdin
	file := filepath.Join(e.dir, "prompt")

	digest := func(prompt string) string {
		return fmt.Sprintf("digest prompt=%x model=%x cwd=%x", sha256.Sum256([]byte(prompt)),
			sha256.Sum256([]byte(model)), sha256.Sum256([]byte(cwd)))
	}
	cases := []struct {
		name, prompt string
		args         []string
		stdin        bool
	}{
		{"argument", argvPrompt, []string{argvPrompt}, false},
		{"stdin", argvPrompt, []string{"-"}, true},
		{"stdin with NUL", nulPrompt, []string{"-"}, true},
		{"file", argvPrompt, []string{"-f", file}, false},
		{"file with NUL", nulPrompt, []string{"-f", file}, false},
		{"detached", argvPrompt, []string{"-d", "-f", file}, false},
		{"detached with NUL", nulPrompt, []string{"-d", "-f", file}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.t = t
			if err := os.WriteFile(file, []byte(tc.prompt), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"run", "--json", "--tool", "codex", "--cd", cwd, "-m", model}, tc.args...)
			c := e.cmd(args...)
			if tc.stdin {
				c.Stdin = strings.NewReader(tc.prompt)
			}
			var out, errb bytes.Buffer
			c.Stdout, c.Stderr = &out, &errb
			if err := c.Run(); err != nil {
				t.Fatalf("csa run: %v\n%s%s", err, out.String(), errb.String())
			}
			var res struct {
				ID       string            `json:"session_id"`
				Status   string            `json:"status"`
				Result   string            `json:"result"`
				Model    string            `json:"model"`
				RawBytes map[string]string `json:"raw_bytes"`
			}
			if _, err := verbatim.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("csa run --json: %v\n%s", err, out.String())
			}
			if strings.Contains(strings.Join(tc.args, " "), "-d") {
				e.csa(0, "wait", res.ID)
			} else if res.Model != model {
				t.Errorf("csa run --json model = %q, want the exact bytes", res.Model)
			}
			r := e.inspect(res.ID)
			if r.State != "completed" || r.Result != digest(tc.prompt) {
				t.Fatalf("state %s, result %q; want completed with %q", r.State, r.Result, digest(tc.prompt))
			}
			if r.Model != model || r.Cwd != cwd || len(r.Damaged) != 0 {
				t.Errorf("recorded model %q cwd %q damaged %v; want the exact bytes", r.Model, r.Cwd, r.Damaged)
			}
			inArgs := false
			for _, a := range r.Args {
				inArgs = inArgs || a == tc.prompt
			}
			if !inArgs {
				// Not in argv: prompt.txt holds it.
				p := e.promptFile(res.ID)
				if p != tc.prompt {
					t.Errorf("prompt.txt holds %q, want the exact prompt", p)
				}
			}
			if !strings.Contains(e.csa(0, "ps"), res.ID) {
				t.Errorf("csa ps does not list %s", res.ID)
			}
			if !strings.Contains(e.csa(0, "logs", res.ID), "digest prompt=") {
				t.Errorf("csa logs %s shows no answer", res.ID)
			}
			e.csa(0, "wait", res.ID)
			e.csa(0, "rm", res.ID)
		})
	}
}

// promptFile is the prompt.txt of session id.
func (e *env) promptFile(id string) string {
	e.t.Helper()
	m, _ := filepath.Glob(filepath.Join(e.dir, "state", "projects", "*", "sessions", id, "prompt.txt"))
	if len(m) != 1 {
		e.t.Fatalf("prompt.txt of %s: %v", id, m)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// A NUL byte cannot go in argv or the environment: the run is refused
// before it starts, naming the value, exit 2, and no session is left.
func TestNULRefusedBeforeStart(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.dir, "proj", ".csa", "config.toml")
	if err := os.WriteFile(cfg, []byte("[tools.opencode]\nenv = { ODD = \"a\\u0000b\" }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := e.cmd("run", "--tool", "opencode", "echo hi")
	var errb bytes.Buffer
	c.Stderr = &errb
	err := c.Run()
	if c.ProcessState.ExitCode() != 2 || !strings.Contains(errb.String(), "the environment variable ODD holds a NUL byte") {
		t.Fatalf("exit %v, stderr %q; want 2 naming ODD", err, errb.String())
	}
	// An interactive session's first prompt goes in argv.
	file := filepath.Join(e.dir, "nul")
	os.WriteFile(file, []byte("echo a\x00b"), 0o600)
	c = e.cmd("run", "-i", "--tool", "codex", "-f", file)
	errb.Reset()
	c.Stderr = &errb
	c.Run()
	if c.ProcessState.ExitCode() != 2 || !strings.Contains(errb.String(), "the prompt holds a NUL byte (\\x00) at byte 6") {
		t.Fatalf("interactive: exit %d, stderr %q; want 2 naming the prompt", c.ProcessState.ExitCode(), errb.String())
	}
	if rows := e.ps(); len(rows) != 0 {
		t.Fatalf("refused runs left sessions: %+v", rows)
	}
}

// A state file an earlier csa wrote with a byte that is not UTF-8 in it
// (which TOML cannot hold) is read all the same: the session is listed,
// inspected, waited for, its logs read, removed, and the field marked.
func TestStateWithRawBytesStillReads(t *testing.T) {
	e := newEnv(t)
	id := strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", "echo done"))
	e.csa(0, "wait", id)
	m, _ := filepath.Glob(filepath.Join(e.dir, "state", "projects", "*", "sessions", id, "state.toml"))
	if len(m) != 1 {
		t.Fatal(m)
	}
	data, _ := os.ReadFile(m[0])
	// What csa wrote before it kept such bytes: the raw byte in a string.
	data = bytes.Replace(data, []byte("'echo done'"), []byte("\"echo caf\xe9\""), 1)
	data = bytes.Replace(data, []byte("result = 'done'"), []byte("result = 'don\xff"), 1) // and a torn value
	os.WriteFile(m[0], data, 0o600)

	r := e.inspect(id)
	if r.State != "completed" || r.Args[len(r.Args)-1] != "echo caf\uFFFD" {
		t.Fatalf("state %s args %q", r.State, r.Args)
	}
	if strings.Join(r.Damaged, ",") != "/args,/result" {
		t.Fatalf("damaged = %v, want /args and /result", r.Damaged)
	}
	if !strings.Contains(e.csa(0, "ps"), id) {
		t.Fatal("csa ps does not list the session")
	}
	if out := e.csa(0, "gc", "--dry-run", "--json"); strings.Contains(out, id) {
		t.Fatalf("csa gc would remove a readable session: %s", out)
	}
	e.csa(0, "logs", id)
	e.csa(0, "wait", id)
	e.csa(0, "rm", id)
}
