// Package fakeagent is a stand-in agent program for tests and the offline
// demo. It accepts the argv shapes of the real tools (the prompt last, or
// "-" / nothing for standard input) and treats its prompt as a script of
// directives, one per line or separated by ';' outside quotes:
//
//	echo TEXT        print TEXT on stdout      stderr TEXT   print on stderr
//	sleep DUR        sleep (Go duration)       exit N        exit with status N
//	binary N         N random bytes, NULs too, then a newline  flood N       N bytes of text lines
//	csa ARGS...      run csa (a nested run; $VAR words expanded), stdout passed through
//	env NAME...      print NAME=value          args          print argv as JSON
//	ignore-term      ignore SIGTERM            fork N        start N sleeping children
//	read             read stdin to EOF, print how many bytes
//	pidfile PATH     write own pid             hang          block forever
//	write PATH TEXT  write a file              waitfile PATH block until PATH exists (60 s at most)
//	copy FROM TO     copy a file (nothing when FROM cannot be read)
//	sh COMMAND       run COMMAND with sh -c, like an agent's shell tool: its output and error lines, then "sh: exit N"
//
//	error TEXT       fail with a provider error in the tool's own format
//	alloc MB         allocate and touch MB megabytes, hold them 200 ms
//	forkbomb N       start up to N sleeping children, report how many started
//	overlap FILE MS  count this run in FILE ("current max", under flock) for MS ms
//	ratelimited M... fail with a 429 when the run's model (-m/--model) is one of M
//	orphan PIDFILE   start a child in a session of its own that ignores SIGHUP and SIGTERM
//	retrying N M...  report N retries of a 429 in the tool's own format, then hang
//	                 (with models M, only when the run's model is one of them)
//	prompt           print the whole prompt as received, line by line
//	digest           print the SHA-256 of the prompt, the model and the working
//	                 directory exactly as received (bytes that are not text too)
//	mcp TOOL JSON    call TOOL of the MCP server csa gave the run (--mcp-config), print its text
//
// A prompt whose first word is not a directive is answered with its size.
// Under csa (CSA_TOOL set) it speaks that tool's structured output: a
// session id (the one asked for with --session-id or a resume flag), a
// message per line of text, usage, and a final result.
package fakeagent

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/fsutil"
)

// Main runs the fake agent and returns its exit status.
func Main() int {
	if isInteractive() {
		return interactiveMain()
	}
	tool := os.Getenv(csaenv.Tool)
	inv, err := parseArgs(tool, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent:", err)
		return 2
	}
	out := newEmitter(tool)
	model, prompt = inv.model, inv.prompt
	sid := inv.session
	if sid == "" {
		sid = randomID(tool)
	}
	out.start(sid)
	if inv.resumed {
		out.text("resumed " + sid)
	}
	steps := scripted(tool, inv.prompt, split(inv.prompt)) // CSA_FAKE_ANSWERS: see review.go
	if len(steps) == 0 || !known(firstWord(steps[0])) {
		out.text(fmt.Sprintf("fake agent received %d bytes via %s", len(inv.prompt), inv.via))
		out.end()
		return 0
	}
	for _, s := range steps {
		if code, done := run(out, s); done {
			return code
		}
	}
	out.end()
	return 0
}

// invocation is what the fake understood of its argv.
type invocation struct {
	prompt, via string
	session     string
	resumed     bool
	model       string
}

// model is the run's model, for the ratelimited directive; prompt is the
// whole prompt, for the prompt directive.
var model, prompt string

// valueFlags take a value in some real tool's argv.
var valueFlags = map[string]bool{
	"-m": true, "--model": true, "--effort": true, "--session-id": true, "--resume": true, "-r": true,
	"-s": true, "--session": true, "--output-format": true, "--format": true, "-c": true, "--variant": true, "--log-level": true,
}

// parseArgs reads the argv shapes of the real tools: flags, subcommand
// words, a session to resume, and the prompt last (or on stdin).
func parseArgs(tool string, args []string) (invocation, error) {
	var inv invocation
	var pos []string
	pflag := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-p" && tool == "gemini-cli" && i+1 < len(args):
			i++
			pflag = args[i]
		case valueFlags[a] && i+1 < len(args):
			i++
			switch a {
			case "-m", "--model":
				inv.model = args[i]
			case "--session-id":
				inv.session = args[i]
			case "--resume", "-r", "-s", "--session":
				inv.session, inv.resumed = args[i], true
			}
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			pos = append(pos, a)
		}
	}
	for len(pos) > 0 && (pos[0] == "exec" || pos[0] == "run") {
		pos = pos[1:]
	}
	if len(pos) > 0 && pos[0] == "resume" { // codex exec resume ID PROMPT
		if len(pos) < 2 {
			return inv, fmt.Errorf("resume needs a session id")
		}
		inv.session, inv.resumed, pos = pos[1], true, pos[2:]
	}
	switch {
	case tool == "gemini-cli" && strings.TrimSpace(pflag) != "":
		inv.prompt, inv.via = pflag, "argv"
	case tool != "gemini-cli" && len(pos) > 0 && pos[len(pos)-1] != "-":
		inv.prompt, inv.via = pos[len(pos)-1], "argv"
	default:
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return inv, err
		}
		inv.prompt, inv.via = string(b), "stdin"
	}
	return inv, nil
}

var directives = map[string]bool{
	"echo": true, "stderr": true, "sleep": true, "exit": true, "binary": true, "flood": true,
	"csa": true, "env": true, "args": true, "ignore-term": true, "fork": true, "read": true,
	"pidfile": true, "hang": true, "write": true, "copy": true, "waitfile": true, "error": true, "alloc": true, "forkbomb": true, "overlap": true, "ratelimited": true,
	"orphan": true, "retrying": true, "prompt": true, "digest": true, "mcp": true, "sh": true,
}

func known(w string) bool { return directives[w] }

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func run(out emitter, step string) (code int, done bool) {
	words := fields(step)
	if len(words) == 0 {
		return 0, false
	}
	arg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(step), words[0]))
	switch words[0] {
	case "echo":
		out.text(unquote(arg))
	case "error":
		out.fail(unquote(arg))
		return 1, true
	case "stderr":
		fmt.Fprintln(os.Stderr, unquote(arg))
	case "sleep":
		d, _ := time.ParseDuration(arg)
		time.Sleep(d)
	case "exit":
		n, _ := strconv.Atoi(arg)
		if n == 0 {
			out.end()
		}
		return n, true
	case "binary":
		n, _ := strconv.Atoi(arg)
		b := make([]byte, n)
		rand.Read(b)
		os.Stdout.Write(append(b, '\n'))
	case "flood":
		n, _ := strconv.Atoi(arg)
		line := []byte(strings.Repeat("x", 99) + "\n")
		for ; n > 0; n -= len(line) {
			os.Stdout.Write(line[:min(n, len(line))])
		}
	case "csa":
		args := words[1:]
		for i, a := range args {
			if strings.HasPrefix(a, "$") { // whole-word only: nested prompts expand at their own level
				args[i] = os.ExpandEnv(a)
			}
		}
		// Like a real agent's shell tool: the nested run's output becomes
		// part of what this agent says.
		cmd := exec.Command("csa", args...)
		cmd.Stderr = os.Stderr
		b, err := cmd.Output()
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if l != "" {
				out.text(l)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent: csa:", err)
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), true
			}
			return 1, true
		}
	case "env":
		for _, k := range words[1:] {
			out.text(fmt.Sprintf("%s=%s", k, os.Getenv(k)))
		}
	case "mcp":
		return mcpCall(out, arg)
	case "args":
		b, _ := json.Marshal(os.Args[1:])
		out.text(string(b))
	case "digest":
		wd, _ := os.Getwd()
		out.text(fmt.Sprintf("digest prompt=%x model=%x cwd=%x", sha256.Sum256([]byte(prompt)),
			sha256.Sum256([]byte(model)), sha256.Sum256([]byte(wd))))
	case "prompt": // the whole prompt as received, line by line
		for _, l := range strings.Split(strings.TrimRight(prompt, "\n"), "\n") {
			out.text(l)
		}
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	case "fork":
		n, _ := strconv.Atoi(arg)
		for i := 0; i < n; i++ {
			c := exec.Command("sleep", "300")
			c.Start()
		}
	case "read":
		b, _ := io.ReadAll(os.Stdin)
		out.text(fmt.Sprintf("read %d bytes from stdin", len(b)))
	case "pidfile":
		// Whole or absent: a test that sees the file reads the pid.
		fsutil.WriteFileReplace(arg, []byte(strconv.Itoa(os.Getpid())))
	case "hang":
		hang()
	case "alloc":
		n, _ := strconv.Atoi(arg)
		mem := make([][]byte, n)
		for i := range mem {
			mem[i] = make([]byte, 1<<20)
			for j := 0; j < len(mem[i]); j += 4096 {
				mem[i][j] = 1
			}
		}
		time.Sleep(200 * time.Millisecond)
		out.text(fmt.Sprintf("allocated %d MB", len(mem)))
	case "ratelimited":
		for _, m := range words[1:] {
			if m == model {
				out.fail("429 Too Many Requests: rate limited on " + m + ", retry after " + retryAfter())
				return 1, true
			}
		}
	case "overlap":
		if len(words) == 3 {
			ms, _ := strconv.Atoi(words[2])
			overlap(words[1], +1)
			time.Sleep(time.Duration(ms) * time.Millisecond)
			overlap(words[1], -1)
		}
	case "forkbomb":
		n, _ := strconv.Atoi(arg)
		started := 0
		var ferr error
		for ; started < n; started++ {
			c := exec.Command("sleep", "30")
			if ferr = c.Start(); ferr != nil {
				break
			}
		}
		out.text(fmt.Sprintf("started %d of %d processes: %v", started, n, ferr))
	case "retrying":
		// Like a program retrying a 429 by itself: N reports, then it
		// waits on (csa is to give up on it). With models named, only
		// when the run's model is one of them.
		if len(words) < 2 {
			break
		}
		n, _ := strconv.Atoi(words[1])
		if len(words) > 2 && !slices.Contains(words[2:], model) {
			break
		}
		for i := 1; i <= n; i++ {
			out.retry(i, 10)
			// Real programs wait a second or more between retries.
			time.Sleep(100 * time.Millisecond)
		}
		hang()
	case "orphan":
		// A child that leaves the group (setsid) and ignores SIGHUP and
		// SIGTERM: it dies with nothing of the run unless csa ends it.
		c := exec.Command("sh", "-c", "trap '' HUP TERM; exec sleep 300")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err == nil {
			fsutil.WriteFileReplace(arg, []byte(strconv.Itoa(c.Process.Pid)))
		}
	case "waitfile":
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(arg); err == nil {
				break
			}
			if time.Now().After(deadline) {
				out.fail("waitfile: " + arg + " never appeared")
				return 1, true
			}
		}
	case "sh":
		// Like a real agent's shell tool: what the command printed, and
		// how it ended, become part of what this agent says.
		cmd := exec.Command("sh", "-c", arg)
		b, _ := cmd.CombinedOutput()
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if l != "" {
				out.text(l)
			}
		}
		out.text(fmt.Sprintf("sh: exit %d", cmd.ProcessState.ExitCode()))
	case "copy":
		if len(words) == 3 {
			if b, err := os.ReadFile(words[1]); err == nil {
				os.WriteFile(words[2], b, 0o644)
			}
		}
	case "write":
		if len(words) >= 2 {
			os.WriteFile(words[1], []byte(strings.Join(words[2:], " ")+"\n"), 0o644)
		}
	}
	return 0, false
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// split cuts the prompt into directives at newlines and at ';' outside
// quotes, so a nested prompt can carry its own directives.
func split(p string) []string {
	var out []string
	var cur strings.Builder
	var q rune
	for _, r := range p {
		switch {
		case q != 0:
			if r == q {
				q = 0
			}
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			q = r
			cur.WriteRune(r)
		case r == ';' || r == '\n':
			if s := strings.TrimSpace(cur.String()); s != "" {
				out = append(out, s)
			}
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// fields splits a directive into words, honouring one level of quotes.
func fields(s string) []string {
	var out []string
	var cur strings.Builder
	var q rune
	in := false
	for _, r := range s {
		switch {
		case q != 0:
			if r == q {
				q = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			q, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// overlap adds d to the "current max" counters in path, under an flock,
// so tests can see how many runs were inside at once.
func overlap(path string, d int) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	var cur, max int
	b, _ := io.ReadAll(f)
	fmt.Sscan(string(b), &cur, &max)
	cur += d
	if cur > max {
		max = cur
	}
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("%d %d\n", cur, max)), 0)
}

// retryAfter is what the ratelimited directive asks for (CSA_FAKE_RETRY_AFTER,
// default 1s).
func retryAfter() string {
	if v := os.Getenv("CSA_FAKE_RETRY_AFTER"); v != "" {
		return v
	}
	return "1s"
}

// hang blocks for good. (A bare select{} lets the runtime call it a
// deadlock and exit 2 when no other goroutine can run.)
func hang() {
	for {
		time.Sleep(time.Hour)
	}
}
