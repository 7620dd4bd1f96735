package llm

import (
	"errors"
	"fmt"
	"time"
)

// Failure classes, the same strings as csa's (session.Fail*): a run of
// csa-agent that fails reports one, so csa's tiers fail over as for the
// other tools. Kept as literals: csa-agent does not link csa's session code.
const (
	ClassRateLimited = "rate_limited"
	ClassQuota       = "quota_exhausted"
	ClassAuth        = "auth"
	ClassCrashed     = "crashed"
	ClassTimeout     = "timed_out"
)

// APIError is an error answer from a provider.
type APIError struct {
	Provider   string
	Status     int           // HTTP status; 0 for an error inside a stream
	Type       string        // the API's error type, if any
	Message    string        // the API's message
	RetryAfter time.Duration // from retry-after(-ms), 0 if none
	// Overloaded: the model is overloaded (Anthropic 529, 503): a reason
	// to try the fallback model.
	Overloaded bool
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: %s: %s", e.Provider, e.Type, e.Message)
	}
	return fmt.Sprintf("%s: HTTP %d %s: %s", e.Provider, e.Status, e.Type, e.Message)
}

// Class is the failure class of the error.
func (e *APIError) Class() string {
	switch {
	case e.Status == 401 || e.Status == 403:
		return ClassAuth
	case e.Status == 402 || e.Type == "insufficient_quota":
		return ClassQuota
	case e.Status == 429 || e.Overloaded:
		return ClassRateLimited
	}
	return ClassCrashed
}

// Retryable reports whether the same request may succeed later.
func (e *APIError) Retryable() bool {
	if e.Type == "insufficient_quota" {
		return false
	}
	return e.Status == 0 || e.Status == 408 || e.Status == 409 || e.Status == 429 || e.Status >= 500
}

// ErrStalled is a stream that went silent for longer than Timeouts.Stall.
var ErrStalled = errors.New("stream stalled")

// ClassOf classes any error of a model call.
func ClassOf(err error) string {
	var ce interface{ Class() string } // *APIError, and config errors such as a missing key
	switch {
	case errors.As(err, &ce):
		return ce.Class()
	case errors.Is(err, ErrStalled):
		return ClassTimeout
	}
	return ClassCrashed
}
