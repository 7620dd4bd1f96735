package runner

import (
	"fmt"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/session"
)

// retryCount follows the agent's own retries of failed model requests:
// how many in all, and how many rate-limit retries in a row (progress of
// the answer, or a retry for another reason, breaks the row).
type retryCount struct {
	total, inRow int
	last         agents.Retry
	gaveUp       bool
}

// note counts e; once the agent has retried a rate limit `after` times in
// a row (0: never) it returns the ending that stops the run, once.
func (c *retryCount) note(e agents.Event, after int) *ending {
	switch e.Type {
	case agents.EvRetry:
		r, _ := e.Data.(agents.Retry)
		c.total++
		c.last = r
		if r.RateLimited {
			c.inRow++
		} else {
			c.inRow = 0
		}
	case agents.EvText, agents.EvThought, agents.EvToolCall, agents.EvToolResult:
		c.inRow = 0
	}
	if after <= 0 || c.inRow < after || c.gaveUp {
		return nil
	}
	c.gaveUp = true
	msg := fmt.Sprintf("the agent retried a rate-limited request %d times in a row", c.inRow)
	if c.last.Status != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", c.last.Status)
	}
	if c.last.Message != "" {
		msg += ": " + c.last.Message
	}
	return &ending{session.Failed, session.FailRateLimited, msg + "; stopped it to fail over"}
}
