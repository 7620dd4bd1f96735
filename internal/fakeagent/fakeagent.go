// Package fakeagent is a stand-in agent program for tests and the offline
// demo. It accepts the argv shapes of the real tools (the prompt last, or
// "-" / nothing for standard input) and treats its prompt as a script of
// directives, one per line or separated by ';' outside quotes:
//
//	echo TEXT        print TEXT on stdout      stderr TEXT   print on stderr
//	sleep DUR        sleep (Go duration)       exit N        exit with status N
//	binary N         N random bytes, NULs too  flood N       N bytes of text lines
//	csa ARGS...      run csa (a nested run; $VAR words expanded), stdout passed through
//	env NAME...      print NAME=value          args          print argv as JSON
//	ignore-term      ignore SIGTERM            fork N        start N sleeping children
//	read             read stdin to EOF, print how many bytes
//	pidfile PATH     write own pid             hang          block forever
//	write PATH TEXT  write a file
//
// A prompt whose first word is not a directive is answered with its size.
package fakeagent

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Main runs the fake agent and returns its exit status.
func Main() int {
	prompt, via, err := readPrompt(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent:", err)
		return 2
	}
	steps := split(prompt)
	if len(steps) == 0 || !known(firstWord(steps[0])) {
		fmt.Printf("fake agent received %d bytes via %s\n", len(prompt), via)
		return 0
	}
	for _, s := range steps {
		if code, done := run(s); done {
			return code
		}
	}
	return 0
}

// readPrompt takes the last argument as the prompt unless it is a flag, a
// subcommand word or "-", in which case the prompt is on stdin.
func readPrompt(args []string) (string, string, error) {
	if n := len(args); n > 0 {
		last := args[n-1]
		prevFlag := n > 1 && (args[n-2] == "-m" || args[n-2] == "--model")
		if last != "-" && !strings.HasPrefix(last, "-") && last != "exec" && last != "run" && !prevFlag {
			return last, "argv", nil
		}
	}
	b, err := io.ReadAll(os.Stdin)
	return string(b), "stdin", err
}

var directives = map[string]bool{
	"echo": true, "stderr": true, "sleep": true, "exit": true, "binary": true, "flood": true,
	"csa": true, "env": true, "args": true, "ignore-term": true, "fork": true, "read": true,
	"pidfile": true, "hang": true, "write": true,
}

func known(w string) bool { return directives[w] }

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func run(step string) (code int, done bool) {
	words := fields(step)
	if len(words) == 0 {
		return 0, false
	}
	arg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(step), words[0]))
	switch words[0] {
	case "echo":
		fmt.Println(unquote(arg))
	case "stderr":
		fmt.Fprintln(os.Stderr, unquote(arg))
	case "sleep":
		d, _ := time.ParseDuration(arg)
		time.Sleep(d)
	case "exit":
		n, _ := strconv.Atoi(arg)
		return n, true
	case "binary":
		n, _ := strconv.Atoi(arg)
		b := make([]byte, n)
		rand.Read(b)
		os.Stdout.Write(b)
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
		cmd := exec.Command("csa", args...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent: csa:", err)
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), true
			}
			return 1, true
		}
	case "env":
		for _, k := range words[1:] {
			fmt.Printf("%s=%s\n", k, os.Getenv(k))
		}
	case "args":
		b, _ := json.Marshal(os.Args[1:])
		fmt.Println(string(b))
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
		fmt.Printf("read %d bytes from stdin\n", len(b))
	case "pidfile":
		os.WriteFile(arg, []byte(strconv.Itoa(os.Getpid())), 0o644)
	case "hang":
		select {}
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
