package llm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// ErrTruncated is a stream that ended cleanly before its final event: the
// server or a proxy dropped it, and the same request may well succeed.
var ErrTruncated = errors.New("stream ended before its end")

// ErrHeaderTimeout is no response headers within Timeouts.Request. It is a
// stall (class timed_out, retried) that happened before the first byte.
var ErrHeaderTimeout = fmt.Errorf("no response headers in time: %w", ErrStalled)

// Transient reports whether err is worth retrying unchanged: a retryable
// API error, a stall, a truncated stream or a dropped connection.
func Transient(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Retryable()
	}
	switch {
	case errors.Is(err, ErrStalled), errors.Is(err, ErrTruncated),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return true
	}
	// Timeouts of the dial or a read; not cancellation, which callers see
	// through their own context.
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
