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
	"strings"
	"sync"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/store"
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
