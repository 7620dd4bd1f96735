package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"
)

// script is a provider that fails with errs in turn, then answers.
type script struct {
	errs   []error
	models []string
}

func (s *script) Name() string { return "script" }

func (s *script) Stream(_ context.Context, req *Request, _ func(Delta)) (*Response, error) {
	s.models = append(s.models, req.Model)
	if n := len(s.models); n <= len(s.errs) {
		return nil, s.errs[n-1]
	}
	return &Response{Model: req.Model}, nil
}

func TestRetryingWaits(t *testing.T) {
	errs := []error{
		&APIError{Status: 429, RetryAfter: 2 * time.Second},
		&APIError{Status: 429, RetryAfter: time.Hour}, // capped by MaxDelay
		fmt.Errorf("read: %w", syscall.ECONNRESET),
		io.ErrUnexpectedEOF,
	}
	p := &script{errs: errs}
	var waits []time.Duration
	var infos []RetryInfo
	r := &Retrying{Provider: p, BaseDelay: 100 * time.Millisecond, MaxDelay: 10 * time.Second,
		OnRetry: func(i RetryInfo) { infos = append(infos, i) },
		Sleep:   func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	if _, err := r.Stream(context.Background(), &Request{Model: "m"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 4 || waits[0] != 2*time.Second || waits[1] != 10*time.Second {
		t.Fatalf("waits %v", waits)
	}
	// backoff: 100ms·2^(n-1), less up to a quarter
	for i, base := range map[int]time.Duration{2: 400 * time.Millisecond, 3: 800 * time.Millisecond} {
		if waits[i] > base || waits[i] < base*3/4 {
			t.Errorf("wait %d = %v, want about %v", i, waits[i], base)
		}
	}
	if infos[0].Attempt != 1 || infos[3].Attempt != 4 || infos[0].Status != 429 || infos[0].MaxRetries != 4 {
		t.Errorf("infos %+v", infos)
	}
}

func TestRetryingGivesUp(t *testing.T) {
	for _, err := range []error{
		&APIError{Status: 401}, &APIError{Status: 400}, &APIError{Status: 429, Type: "insufficient_quota"},
		errors.New("some bug"),
	} {
		p := &script{errs: []error{err, err}}
		r := &Retrying{Provider: p, Sleep: func(context.Context, time.Duration) error { return nil }}
		if _, got := r.Stream(context.Background(), &Request{}, nil); got != err || len(p.models) != 1 {
			t.Errorf("%v: got %v after %d calls", err, got, len(p.models))
		}
	}
	stalled := fmt.Errorf("x: %w", ErrStalled)
	p := &script{errs: []error{stalled, stalled, stalled}}
	r := &Retrying{Provider: p, MaxRetries: 2, Sleep: func(context.Context, time.Duration) error { return nil }}
	if _, err := r.Stream(context.Background(), &Request{}, nil); err != stalled || len(p.models) != 3 {
		t.Errorf("after the retries: %v, %d calls", err, len(p.models))
	}
}

func TestRetryingFallback(t *testing.T) {
	over := &APIError{Status: 529, Overloaded: true}
	p := &script{errs: []error{over, over}}
	r := &Retrying{Provider: p, Fallback: "small", Sleep: func(context.Context, time.Duration) error { return nil }}
	req := &Request{Model: "big"}
	resp, err := r.Stream(context.Background(), req, nil)
	if err != nil || resp.Model != "small" || fmt.Sprint(p.models) != "[big small small]" || req.Model != "big" {
		t.Errorf("%v %+v models %v, request %q", err, resp, p.models, req.Model)
	}
}
