package fakeagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/term"
)

// The interactive fake is a read-eval loop on its terminal: it prints a
// banner and a "> " prompt, runs each line (and a first prompt from argv)
// as directives, and, when started with --settings FILE holding Claude
// Code style hooks, calls the UserPromptSubmit and Stop hooks around each
// turn, the way the real interface does. With CSA_FAKE_NO_HOOKS set it
// plays a release that ignores the hooks csa installs.

const noHooksEnv = "CSA_FAKE_NO_HOOKS"

func isInteractive() bool { return term.IsTerminal(int(os.Stdin.Fd())) }

type interactiveArgs struct {
	prompt, settings, session string
}

func parseInteractive(args []string) interactiveArgs {
	var ia interactiveArgs
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case (a == "--settings" || a == "-i" || a == "--prompt") && i+1 < len(args):
			i++
			if a == "--settings" {
				ia.settings = args[i]
			} else {
				ia.prompt = args[i]
			}
		case valueFlags[a] && i+1 < len(args):
			i++
			if a == "--session-id" {
				ia.session = args[i]
			}
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if ia.prompt == "" && len(pos) > 0 {
		ia.prompt = pos[len(pos)-1]
	}
	return ia
}

// hookSettings is the part of Claude Code's settings the fake honours.
type hookSettings struct {
	Hooks map[string][]struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
}

type recorder struct{ last []string }

func (r *recorder) start(string)     {}
func (r *recorder) text(s string)    { fmt.Println(s); r.last = append(r.last, s) }
func (r *recorder) fail(msg string)  { fmt.Fprintln(os.Stderr, msg) }
func (r *recorder) end()             {}
func (r *recorder) retry(n, max int) { fmt.Printf("retrying after a 429 (%d/%d)\n", n, max) }

// dropFirstEnterEnv makes the interface lose the first Enter (csa send's
// confirmation is tested with it).
const dropFirstEnterEnv = "CSA_FAKE_DROP_FIRST_ENTER"

func interactiveMain() int {
	ia := parseInteractive(os.Args[1:])
	var hs hookSettings
	if ia.settings != "" && os.Getenv(noHooksEnv) == "" {
		if b, err := os.ReadFile(ia.settings); err == nil {
			json.Unmarshal(b, &hs)
		}
	}
	if ia.session == "" {
		ia.session = randomID("claude-code")
	}
	hook := func(event string, payload map[string]any) {
		for _, m := range hs.Hooks[event] {
			for _, h := range m.Hooks {
				b, _ := json.Marshal(payload)
				cmd := exec.Command("/bin/sh", "-c", h.Command)
				cmd.Stdin = strings.NewReader(string(b))
				cmd.Stderr = os.Stderr
				cmd.Run()
			}
		}
	}
	hook("SessionStart", map[string]any{"session_id": ia.session, "hook_event_name": "SessionStart", "source": "startup"})
	if ia.prompt == "" {
		fmt.Println("fake agent ready")
	}
	turn := func(prompt string) (int, bool) {
		hook("UserPromptSubmit", map[string]any{"session_id": ia.session, "prompt": prompt, "hook_event_name": "UserPromptSubmit"})
		rec := &recorder{}
		steps := split(prompt)
		if len(steps) == 0 || !known(firstWord(steps[0])) {
			rec.text(fmt.Sprintf("fake agent received %d bytes", len(prompt)))
		}
		for _, s := range steps {
			if !known(firstWord(s)) {
				continue
			}
			if code, done := run(rec, s); done {
				return code, true
			}
		}
		hook("Stop", map[string]any{"session_id": ia.session, "hook_event_name": "Stop", "last_assistant_message": strings.Join(rec.last, "\n")})
		return 0, false
	}
	if ia.prompt != "" {
		if code, done := turn(ia.prompt); done {
			return code
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	// CSA_FAKE_DROP_FIRST_ENTER=1: the first line typed stays in the
	// input box, as if its Enter were lost, until another Enter comes.
	dropFirst, pending := os.Getenv(dropFirstEnterEnv) == "1", ""
	for {
		fmt.Print("> ")
		if !in.Scan() {
			return 0
		}
		line := strings.TrimSpace(in.Text())
		if dropFirst && line != "" {
			dropFirst, pending = false, line
			continue
		}
		if line == "" {
			if line, pending = pending, ""; line == "" {
				continue
			}
		}
		if code, done := turn(line); done {
			return code
		}
	}
}
