// Package compact shortens csa-agent's conversations before they outgrow
// the model's context window: it implements loop.Compactor.
//
// When the context of the latest response (input, cache and output
// tokens) reaches Threshold (default 0.8) of Window (default
// DefaultWindow of the model), the older turns are summarised by the
// agent's own provider and model (one request, no tools, the older turns
// given as a transcript) and replaced by one user message holding the
// summary, the latest request of the user verbatim when it was among the
// summarised turns, and the current text of the files read most recently
// (Env.Files.Recent, capped). The recent turns are kept as they are: the
// cut is always made before an assistant message, so a tool call and its
// result are never separated. The compacted conversation is recorded in
// the session store as a store.KindCompact record, which store.Load
// replays. CompactStart and CompactEnd events carry the estimated tokens
// before and after (PreTokens, PostTokens; Mode is the trigger).
//
// A failure (the summary request fails, the store cannot record) leaves
// the conversation as it was: an automatic compaction reports it in a
// CompactEnd event with IsError and the run goes on; it is not tried again
// until the next response.
//
// The CLI wires it as:
//
//	c := compact.New(compact.Config{Window: w, Threshold: t, Store: conv, PreCompact: hook})
//	a := loop.New(loop.Config{..., Compactor: c}, history)
//	// `/compact [instructions]`, between runs:
//	err := c.Now(ctx, a, instructions)
package compact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/csa-dev/csa/internal/agent/event"
	"github.com/csa-dev/csa/internal/agent/loop"
	"github.com/csa-dev/csa/internal/agent/store"
	"github.com/csa-dev/csa/internal/llm"
)

// Triggers, as PreCompact and the events name them.
const (
	Auto   = "auto"
	Manual = "manual"
)

// Recorder keeps records in the session's store (*store.Conversation).
type Recorder interface {
	Append(store.Record) error
}

// Config configures a Compactor; zero values take the defaults.
type Config struct {
	// Window is the model's context window in tokens (0: DefaultWindow
	// of the agent's model).
	Window int64
	// Threshold is the fraction of Window at which to compact (0: 0.8).
	Threshold float64
	// Keep is roughly how many tokens of recent turns are kept verbatim
	// (0: a quarter of the threshold). At least the latest turn is kept.
	Keep int64
	// MaxFiles, MaxFileBytes and MaxFilesBytes bound the re-attached
	// files (defaults 5, 16 KiB each, 48 KiB in all).
	MaxFiles      int
	MaxFileBytes  int
	MaxFilesBytes int
	// SummaryTokens is the summary's answer size (0: 8192).
	SummaryTokens int
	// PreCompact, when set, is called before each compaction with the
	// trigger (auto or manual) and the user's instructions (manual).
	PreCompact func(ctx context.Context, trigger, instructions string)
	// Store records the compacted conversation; nil records nothing.
	Store Recorder
}

// Compactor is a loop.Compactor with a manual entry point.
type Compactor struct {
	cfg  Config
	mu   sync.Mutex
	seen map[*loop.Agent]mark // what was last acted on, per agent
}

// New makes a compactor.
func New(cfg Config) *Compactor {
	if cfg.Threshold <= 0 || cfg.Threshold > 1 {
		cfg.Threshold = 0.8
	}
	if cfg.MaxFiles <= 0 {
		cfg.MaxFiles = 5
	}
	if cfg.MaxFileBytes <= 0 {
		cfg.MaxFileBytes = 16 << 10
	}
	if cfg.MaxFilesBytes <= 0 {
		cfg.MaxFilesBytes = 48 << 10
	}
	if cfg.SummaryTokens <= 0 {
		cfg.SummaryTokens = 8192
	}
	return &Compactor{cfg: cfg, seen: map[*loop.Agent]mark{}}
}

// mark is the response a compaction acted on: its usage and the length of
// the conversation then. A manual compaction marks the usage alone: the
// run after it must not compact again on the usage of before.
type mark struct {
	usage  llm.Usage
	n      int
	manual bool
}

// DefaultWindow is the context window of a model family, when the
// configuration names none: Claude 200k, GPT-5 400k, Gemini 1M, anything
// else 128k.
func DefaultWindow(model string) int64 {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "claude"):
		return 200_000
	case strings.Contains(m, "gpt-5"):
		return 400_000
	case strings.Contains(m, "gemini"):
		return 1_000_000
	}
	return 128_000
}

// Limit is the context size (tokens) at which the agent's conversation is
// compacted.
func (c *Compactor) Limit(a *loop.Agent) int64 {
	w := c.cfg.Window
	if w <= 0 {
		w = DefaultWindow(a.Config().Model)
	}
	return int64(float64(w) * c.cfg.Threshold)
}

// Used is the context a response's usage measures.
func Used(u llm.Usage) int64 {
	return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens
}

// Compact is loop.Compactor: it compacts when the latest response's
// context reached the limit, else returns nil (nothing to do). Failures
// are reported as events, never returned: the conversation goes on as it
// was.
func (c *Compactor) Compact(ctx context.Context, a *loop.Agent, msgs []llm.Message, last llm.Usage) ([]llm.Message, error) {
	if Used(last) < c.Limit(a) {
		return nil, nil
	}
	c.mu.Lock()
	if prev, ok := c.seen[a]; ok && prev.usage == last && (prev.manual || prev.n == len(msgs)) {
		c.mu.Unlock()
		return nil, nil // acted on this response already
	}
	c.seen[a] = mark{usage: last, n: len(msgs)}
	c.mu.Unlock()
	out, err := c.compact(ctx, a, msgs, Auto, "")
	if err != nil {
		return nil, nil
	}
	return out, nil
}

// Now compacts the agent's conversation at once (`/compact
// [instructions]`), whatever its size; it must not run while the agent
// runs. On failure the conversation is unchanged and the error says why.
func (c *Compactor) Now(ctx context.Context, a *loop.Agent, instructions string) error {
	out, err := c.compact(ctx, a, a.Messages(), Manual, instructions)
	if err != nil {
		return err
	}
	a.Replace(out)
	c.mu.Lock()
	c.seen[a] = mark{usage: a.LastUsage(), manual: true} // the next run must not compact again on the old usage
	c.mu.Unlock()
	return nil
}

// ErrNothing is a conversation too short to compact.
var ErrNothing = errors.New("nothing to compact: the conversation has no earlier turn to summarise")

func (c *Compactor) compact(ctx context.Context, a *loop.Agent, msgs []llm.Message, trigger, instructions string) ([]llm.Message, error) {
	cfg := a.Config()
	emit := func(e event.Event) {
		if cfg.Sink != nil {
			e.Agent = cfg.AgentID
			cfg.Sink.Emit(e)
		}
	}
	keep := c.cfg.Keep
	if keep <= 0 {
		keep = c.Limit(a) / 4
	}
	k := Cut(msgs, keep)
	if k < 0 {
		return nil, ErrNothing // said by Now; nothing to report for auto
	}
	pre := Estimate(msgs)
	emit(event.Event{Kind: event.CompactStart, Mode: trigger, Text: instructions, PreTokens: pre})
	out, err := c.build(ctx, a, msgs, k, trigger, instructions)
	if err == nil && c.cfg.Store != nil {
		if serr := c.cfg.Store.Append(store.Record{Kind: store.KindCompact, Messages: out}); serr != nil {
			err = fmt.Errorf("record the compacted conversation: %w", serr)
		}
	}
	if err != nil {
		emit(event.Event{Kind: event.CompactEnd, Mode: trigger, IsError: true, Text: "compaction failed: " + err.Error(),
			PreTokens: pre, PostTokens: pre, Usage: &llm.Usage{InputTokens: pre}})
		return nil, err
	}
	emit(event.Event{Kind: event.CompactEnd, Mode: trigger, PreTokens: pre, PostTokens: Estimate(out),
		Usage: &llm.Usage{InputTokens: pre}})
	return out, nil
}

func (c *Compactor) build(ctx context.Context, a *loop.Agent, msgs []llm.Message, k int, trigger, instructions string) ([]llm.Message, error) {
	if c.cfg.PreCompact != nil {
		c.cfg.PreCompact(ctx, trigger, instructions)
	}
	cfg := a.Config()
	if cfg.Provider == nil {
		return nil, errors.New("no provider to summarise with")
	}
	prompt := Transcript(msgs[:k], c.Limit(a)*3) + "\n\n" + instruction
	if strings.TrimSpace(instructions) != "" {
		prompt += "\n\nAdditional instructions from the user for this summary:\n" + instructions
	}
	resp, err := cfg.Provider.Stream(ctx, &llm.Request{Model: cfg.Model, System: system,
		Messages: []llm.Message{llm.UserText(prompt)}, MaxTokens: c.cfg.SummaryTokens}, nil)
	if err != nil {
		return nil, fmt.Errorf("summarise: %w", err)
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return nil, errors.New("summarise: the model gave an empty summary")
	}
	var b strings.Builder
	b.WriteString("This session continues an earlier conversation that was compacted to fit the context window. " +
		"Summary of the earlier part:\n<summary>\n" + summary + "\n</summary>\n")
	if r := LastRequest(msgs); r >= 0 && r < k {
		b.WriteString("\nThe user's latest request, verbatim:\n<request>\n" + msgs[r].Text() + "\n</request>\n")
	}
	if cfg.Env != nil && cfg.Env.Files != nil {
		b.WriteString(c.files(cfg.Env.Files.Recent(c.cfg.MaxFiles)))
	}
	b.WriteString("\nContinue from where the conversation left off.")
	out := append([]llm.Message{llm.UserText(b.String())}, msgs[k:]...)
	return out, nil
}

const system = "You summarise a coding agent's conversation so that the agent can continue the work from the summary alone."

const instruction = `Summarise the conversation above for the agent that will continue it; it will not see the conversation again. Include:
1. The user's requests and intent, all of them, in detail (quote the latest one).
2. Key technical concepts, decisions and constraints.
3. Files and code: which were read, created or changed, and why; important snippets.
4. Errors met and how they were fixed; what was tried and failed.
5. Pending tasks, the work in progress at the end, and the next step.
Answer with the summary only.`

// files re-attaches recently read files, most recent first, within the
// caps.
func (c *Compactor) files(paths []string) string {
	var b strings.Builder
	total := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || strings.IndexByte(string(data), 0) >= 0 || !utf8.Valid(data) {
			continue
		}
		s := string(data)
		if len(s) > c.cfg.MaxFileBytes {
			s = truncate(s, c.cfg.MaxFileBytes) + "\n… (truncated; read the file again for the rest)"
		}
		if total+len(s) > c.cfg.MaxFilesBytes {
			break
		}
		total += len(s)
		if b.Len() == 0 {
			b.WriteString("\nFiles read recently, as they are now:\n")
		}
		fmt.Fprintf(&b, "<file path=%q>\n%s\n</file>\n", p, s)
	}
	return b.String()
}

// Cut is where to cut msgs: msgs[:k] is summarised, msgs[k:] kept. It is
// the earliest assistant message after which at most keep tokens remain,
// else the last one; never the first message (there would be nothing to
// summarise). A cut before an assistant message never separates a tool
// call from its result. -1: no cut is possible.
func Cut(msgs []llm.Message, keep int64) int {
	last := -1
	tail := int64(0)
	best := -1
	for k := len(msgs) - 1; k >= 2; k-- {
		tail += estimate(msgs[k])
		if msgs[k].Role != llm.Assistant || msgs[k-1].Role != llm.User {
			continue
		}
		if last < 0 {
			last = k
		}
		if tail <= keep {
			best = k
		}
	}
	if best < 0 {
		return last
	}
	return best
}

// LastRequest is the index of the user's latest request: the last user
// message that is not tool results; -1 if none.
func LastRequest(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.User {
			continue
		}
		results := false
		for _, b := range msgs[i].Content {
			results = results || b.Type == llm.BlockToolResult
		}
		if !results && strings.TrimSpace(msgs[i].Text()) != "" {
			return i
		}
	}
	return -1
}

// Estimate is a rough token count of msgs (4 bytes a token).
func Estimate(msgs []llm.Message) int64 {
	var n int64
	for _, m := range msgs {
		n += estimate(m)
	}
	return n
}

func estimate(m llm.Message) int64 {
	n := 0
	for _, b := range m.Content {
		n += len(b.Text) + len(b.Content) + len(b.Input) + len(b.Name) + 8
	}
	return int64(n/4 + 1)
}

// Transcript renders msgs as text for the summary request, each tool
// input and result capped; past maxBytes the oldest part is left out
// (but the first message, usually the task).
func Transcript(msgs []llm.Message, maxBytes int64) string {
	const capBlock = 2000
	names := map[string]string{}
	var parts []string
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockText:
				if strings.TrimSpace(b.Text) != "" {
					parts = append(parts, fmt.Sprintf("[%s]: %s", m.Role, b.Text))
				}
			case llm.BlockToolUse:
				names[b.ID] = b.Name
				parts = append(parts, fmt.Sprintf("[assistant called %s]: %s", b.Name, truncate(string(b.Input), capBlock)))
			case llm.BlockToolResult:
				what := "result"
				if b.IsError {
					what = "error"
				}
				parts = append(parts, fmt.Sprintf("[%s of %s]: %s", what, names[b.ToolUseID], truncate(b.Content, capBlock)))
			}
		}
	}
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	if len(parts) > 1 {
		budget := maxBytes - int64(len(parts[0]))
		start := len(parts)
		for start > 1 && budget >= int64(len(parts[start-1]))+1 {
			start--
			budget -= int64(len(parts[start])) + 1
		}
		if start > 1 {
			parts = append([]string{parts[0], "(… earlier turns left out …)"}, parts[start:]...)
		}
	}
	return "<conversation>\n" + strings.Join(parts, "\n") + "\n</conversation>"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes cut)", len(s)-cut)
}
