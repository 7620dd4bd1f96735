package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// RetryInfo describes a retry about to happen, for the agent to report
// (as Claude Code's api_retry lines do).
type RetryInfo struct {
	Attempt    int // 1 for the first retry
	MaxRetries int
	Status     int // HTTP status of the failure, 0 if none
	Delay      time.Duration
	Err        error
	Model      string // the model the retry uses
}

// Retrying retries a provider's transient failures: retryable API errors
// (429, 5xx, errors inside a stream), stalls, truncated streams and
// dropped connections. Others (400, 401, 403, insufficient_quota) return at
// once. After an overloaded error it switches to Fallback, if set.
type Retrying struct {
	Provider
	MaxRetries int           // 0: 4
	BaseDelay  time.Duration // 0: 500ms; doubled each retry, with jitter
	MaxDelay   time.Duration // 0: 30s; also caps the server's retry-after
	Fallback   string        // model to use after an overloaded error
	OnRetry    func(RetryInfo)
	// Sleep waits d or until ctx ends (tests replace it); nil: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Defaults of Retrying's zero fields.
const (
	DefaultMaxRetries = 4
	DefaultBaseDelay  = 500 * time.Millisecond
	DefaultMaxDelay   = 30 * time.Second
)

// Stream calls the provider until it succeeds, fails for good, or the
// retries run out; the last error is returned.
func (r *Retrying) Stream(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error) {
	maxRetries := r.MaxRetries
	if maxRetries == 0 {
		maxRetries = DefaultMaxRetries
	}
	cur := *req // the fallback changes the model of a copy, not the caller's
	for attempt := 1; ; attempt++ {
		resp, err := r.Provider.Stream(ctx, &cur, onDelta)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !Transient(err) || attempt > maxRetries {
			return nil, err
		}
		info := RetryInfo{Attempt: attempt, MaxRetries: maxRetries, Err: err, Model: cur.Model}
		var ae *APIError
		if errors.As(err, &ae) {
			info.Status = ae.Status
		}
		switch {
		case ae != nil && ae.Overloaded && r.Fallback != "" && cur.Model != r.Fallback:
			// another model is not overloaded: try it at once
			cur.Model, info.Model = r.Fallback, r.Fallback
		case ae != nil && ae.RetryAfter > 0:
			info.Delay = min(ae.RetryAfter, r.maxDelay())
		default:
			info.Delay = r.backoff(attempt)
		}
		if r.OnRetry != nil {
			r.OnRetry(info)
		}
		if err := r.sleep(ctx, info.Delay); err != nil {
			return nil, err
		}
	}
}

func (r *Retrying) maxDelay() time.Duration {
	if r.MaxDelay > 0 {
		return r.MaxDelay
	}
	return DefaultMaxDelay
}

// backoff is BaseDelay·2^(attempt-1), capped, with up to 25% taken off at
// random so that clients that failed together do not retry together.
func (r *Retrying) backoff(attempt int) time.Duration {
	base := r.BaseDelay
	if base <= 0 {
		base = DefaultBaseDelay
	}
	d := r.maxDelay()
	if attempt < 30 && base<<(attempt-1) < d {
		d = base << (attempt - 1)
	}
	return d - time.Duration(rand.Int64N(int64(d)/4+1))
}

func (r *Retrying) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
