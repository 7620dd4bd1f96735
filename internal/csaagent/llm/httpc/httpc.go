// Package httpc is the HTTP plumbing the thin provider clients share: a
// JSON POST bounded by the request timeout, and error answers decoded into
// *llm.APIError.
package httpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Endpoint is where and how a provider client talks to its API.
type Endpoint struct {
	BaseURL  string            // without a trailing slash
	APIKey   string            // "" for servers that take none
	Headers  map[string]string // extra headers, e.g. OpenRouter's
	Timeouts llm.Timeouts
	Client   *http.Client // nil: a shared default client
}

// URL joins the base URL and path.
func (e Endpoint) URL(path string) string {
	return strings.TrimRight(e.BaseURL, "/") + path
}

var (
	defaultOnce   sync.Once
	defaultClient *http.Client
)

// client is the shared client; timeouts come from contexts, not from it,
// since a streamed answer may rightly take minutes.
func (e Endpoint) client() *http.Client {
	if e.Client != nil {
		return e.Client
	}
	defaultOnce.Do(func() { defaultClient = &http.Client{} })
	return defaultClient
}

// Post sends body as JSON with the given headers (the endpoint's own are
// added) and returns the response of a 2xx answer; any other status is an
// *llm.APIError for provider. The returned body must be closed; closing
// it also releases the request's context.
func Post(ctx context.Context, e Endpoint, provider, url string, headers map[string]string, body any) (*http.Response, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", provider, err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		cancel(nil)
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	for k, v := range e.Headers {
		req.Header.Set(k, v)
	}
	stop := func() bool { return true }
	if d := e.Timeouts.Request; d > 0 {
		t := time.AfterFunc(d, func() { cancel(llm.ErrHeaderTimeout) })
		stop = t.Stop
	}
	resp, err := e.client().Do(req)
	stopped := stop()
	if err != nil {
		cause := context.Cause(ctx)
		cancel(nil)
		if errors.Is(cause, llm.ErrHeaderTimeout) {
			return nil, fmt.Errorf("%s: %w", provider, llm.ErrHeaderTimeout)
		}
		return nil, fmt.Errorf("%s: %w", provider, err)
	}
	if !stopped && errors.Is(context.Cause(ctx), llm.ErrHeaderTimeout) {
		// headers came just as the timer fired: the body is already dead
		_ = resp.Body.Close()
		cancel(nil)
		return nil, fmt.Errorf("%s: %w", provider, llm.ErrHeaderTimeout)
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: func() { cancel(nil) }}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, DecodeError(provider, resp.StatusCode, resp.Header, raw)
	}
	return resp, nil
}

// cancelBody cancels the request's context when closed, which also
// unblocks a read in progress (the stall timer relies on that).
type cancelBody struct {
	io.ReadCloser
	cancel func()
}

func (b *cancelBody) Close() error {
	b.cancel()
	return b.ReadCloser.Close()
}
