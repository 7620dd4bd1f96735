package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/csa-dev/csa/internal/agent/event"
	"github.com/csa-dev/csa/internal/agent/loop"
	"github.com/csa-dev/csa/internal/agent/render"
	"github.com/csa-dev/csa/internal/llm"
)

// headless answers one prompt and exits: 0 when the run succeeded, 1 when
// it failed (the result says why, with its failure class).
func (s *session) headless(ctx context.Context, prompt string) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	out := s.turn(ctx, prompt)
	if s.o.outputFormat == "json" && s.result != nil {
		b, _ := json.Marshal(render.Result(*s.result, s.id))
		fmt.Fprintln(s.io.Stdout, string(b))
	}
	if out.End == loop.EndDone || out.End == loop.EndStopped {
		return exitOK
	}
	if out.End == loop.EndInterrupted {
		return 130
	}
	return exitFailed
}

// turn runs one input through the loop with its hooks around it: a
// UserPromptSubmit hook may keep the prompt from the model or add context
// to it. The loop runs the Stop hooks when the model ends the turn; after
// any other end they run here, as a program driving csa-agent (csa's
// classifier) learns from them that the turn is over.
func (s *session) turn(ctx context.Context, input string) loop.Outcome {
	msg := llm.UserText(input)
	p := s.hooks.UserPromptSubmit(ctx, input)
	if p.Blocked != "" {
		text := "prompt blocked by a UserPromptSubmit hook: " + p.Blocked
		fmt.Fprintln(s.io.Stderr, "csa-agent:", text)
		s.sink.Emit(event.Event{Kind: event.Result, Text: text, IsError: true, Mode: "blocked", SessionID: s.id})
		s.hooks.StopAfter(ctx, "")
		return loop.Outcome{End: loop.EndError, Text: text, Class: "blocked"}
	}
	for _, extra := range []string{s.context, p.Context} {
		if extra != "" {
			msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: extra})
		}
	}
	s.context = ""
	out := s.agent.Run(ctx, msg)
	if out.End != loop.EndDone {
		s.hooks.StopAfter(ctx, out.Text)
	}
	return out
}

// repl reads a line at a time. Ctrl-C interrupts the turn in progress and
// keeps the conversation; at the prompt it exits, as does end of input.
func (s *session) repl(ctx context.Context, first string) int {
	in := bufio.NewScanner(s.io.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	next := first
	for {
		if next == "" {
			fmt.Fprint(s.io.Stderr, "> ")
			if !in.Scan() {
				fmt.Fprintln(s.io.Stderr)
				s.endReason = "prompt_input_exit"
				return exitOK
			}
			next = strings.TrimSpace(in.Text())
		}
		line := next
		next = ""
		switch {
		case line == "":
			continue
		case line == "/exit" || line == "/quit":
			s.endReason = "prompt_input_exit"
			return exitOK
		case strings.HasPrefix(line, "/"):
			s.command(ctx, line)
			continue
		}
		if ctx.Err() != nil {
			return 130
		}
		tctx, cancel := turnContext(ctx)
		s.turn(tctx, line)
		cancel()
	}
}

// command runs a slash command.
func (s *session) command(ctx context.Context, line string) {
	switch strings.Fields(line)[0] {
	case "/compact":
		s.compactNow(ctx, strings.TrimSpace(strings.TrimPrefix(line, "/compact")))
	case "/help":
		fmt.Fprintln(s.io.Stderr, "/compact [instructions]  summarise older turns now\n/exit                    leave")
	default:
		fmt.Fprintf(s.io.Stderr, "unknown command %s (/help lists them)\n", line)
	}
}

// compactNow summarises the conversation on request (/compact).
func (s *session) compactNow(ctx context.Context, instructions string) {
	tctx, cancel := turnContext(ctx)
	defer cancel()
	if err := s.compactor.Now(tctx, s.agent, instructions); err != nil {
		fmt.Fprintln(s.io.Stderr, "compaction failed, the conversation is unchanged:", err)
		return
	}
	fmt.Fprintln(s.io.Stderr, "compacted")
}
