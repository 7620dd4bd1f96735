package cluster

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// A stream or consumer the asked server does not know yet (made through
// another server a moment ago) is asked again; one still unknown after
// propagation is an error, and other errors are not retried.
func TestRetryWaitsForAStreamToBeSeen(t *testing.T) {
	notFound := &jetstream.APIError{Code: 404, ErrorCode: jetstream.JSErrCodeStreamNotFound, Description: "stream not found"}
	calls := 0
	err := retry(context.Background(), func(context.Context) error {
		if calls++; calls < 3 {
			return notFound
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("retry = %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	other := errors.New("permission denied")
	if err := retry(context.Background(), func(context.Context) error { calls++; return other }); err != other || calls != 1 {
		t.Fatalf("a lasting error: %v after %d calls", err, calls)
	}
	if !notYetSeen(&jetstream.APIError{Code: 404, ErrorCode: jetstream.JSErrCodeConsumerNotFound}) {
		t.Error("a consumer not found is not taken for not yet seen")
	}
}
