package loop

import (
	"context"
	"fmt"
	"sync"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// runTools runs one turn's calls: each run of consecutive calls that are
// safe together goes in parallel (at most Config.Parallel at once), every
// other call alone and in order. Results come back in call order, one per
// call, whatever happens (an interrupted call's result says so).
func (a *Agent) runTools(ctx context.Context, uses []llm.Block) []llm.Block {
	for _, u := range uses {
		a.emit(event.Event{Kind: event.ToolQueued, ToolID: u.ID, ToolName: u.Name, Input: u.Input})
	}
	results := make([]llm.Block, len(uses))
	for i := 0; i < len(uses); {
		j := i + 1
		if a.safe(uses[i]) {
			for j < len(uses) && a.safe(uses[j]) {
				j++
			}
		}
		if j-i == 1 {
			results[i] = a.call(ctx, uses[i])
		} else {
			a.parallel(ctx, uses[i:j], results[i:j])
		}
		i = j
	}
	return results
}

func (a *Agent) parallel(ctx context.Context, uses, results []llm.Block) {
	sem := make(chan struct{}, a.cfg.Parallel)
	var wg sync.WaitGroup
	for k := range uses {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[k] = a.call(ctx, uses[k])
		}()
	}
	wg.Wait()
}

func (a *Agent) safe(u llm.Block) bool {
	t, ok := a.tools[u.Name]
	return ok && t.ConcurrencySafe(u.Input)
}

// call runs one tool call and returns its tool_result block.
func (a *Agent) call(ctx context.Context, u llm.Block) llm.Block {
	res := llm.Block{Type: llm.BlockToolResult, ToolUseID: u.ID}
	var extra []string // hooks' context, after the result
	fail := func(msg string) llm.Block {
		msg = withContext(msg, extra)
		res.Content, res.IsError = msg, true
		a.emit(event.Event{Kind: event.ToolFinished, ToolID: u.ID, ToolName: u.Name, Text: msg, IsError: true})
		return res
	}
	t, ok := a.tools[u.Name]
	switch {
	case !ok:
		return fail(fmt.Sprintf("no tool named %q", u.Name))
	case ctx.Err() != nil:
		return fail("interrupted by the user before it ran")
	}
	c := Call{Who: a.who(), ID: u.ID, Tool: t, Input: u.Input}
	if h := a.cfg.Hooks; h != nil {
		v := h.BeforeTool(ctx, c)
		if v.Context != "" {
			extra = append(extra, v.Context)
		}
		if v.Stop != "" {
			a.StopWith(v.Stop)
			return fail("stopped by a hook: " + v.Stop)
		}
		if v.Decision == Deny {
			return fail("blocked by a hook: " + v.Reason)
		}
		if v.Input != nil {
			c.Input = v.Input
		}
		c.Hook = v.Decision
	}
	if a.cfg.Permit != nil {
		if allow, reason := a.cfg.Permit(ctx, c); !allow {
			return fail("permission denied: " + reason)
		}
	}
	a.emit(event.Event{Kind: event.ToolStarted, ToolID: u.ID, ToolName: u.Name, Input: c.Input})
	out, err := t.Run(ctx, a.cfg.Env, c.Input)
	if err != nil {
		a.mu.Lock()
		if a.fatal == nil {
			a.fatal = fmt.Errorf("tool %s: %w", u.Name, err)
		}
		a.mu.Unlock()
		return fail("internal error: " + err.Error())
	}
	if ctx.Err() != nil && !out.IsError {
		out.Output += "\n(interrupted by the user)"
	}
	if h := a.cfg.Hooks; h != nil {
		after := h.AfterTool(ctx, c, out)
		if after.Context != "" {
			extra = append(extra, after.Context)
		}
		if after.Stop != "" {
			a.StopWith(after.Stop)
		}
	}
	res.Content, res.IsError = withContext(out.Output, extra), out.IsError
	a.emit(event.Event{Kind: event.ToolFinished, ToolID: u.ID, ToolName: u.Name, Text: res.Content, IsError: out.IsError,
		Response: out.Response})
	return res
}

// withContext adds what hooks gave for the model after a result.
func withContext(out string, extra []string) string {
	for _, e := range extra {
		out += "\n\n" + e
	}
	return out
}

func (a *Agent) who() Who { return Who{ID: a.cfg.AgentID, Type: a.cfg.AgentType} }
