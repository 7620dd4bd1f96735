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

// A 503 from JetStream (no peers to place replicas on yet, "peer
// offline", while a cluster starts or after it lost a server) is tried
// again for a while, then taken as the answer; another API error is the
// answer at once.
func TestRetrySettlingCluster(t *testing.T) {
	noPeers := &jetstream.APIError{Code: 503, ErrorCode: 10005, Description: "no suitable peers for placement, peer offline"}
	calls := 0
	err := retryEach(context.Background(), 0, func(context.Context) error {
		if calls++; calls < 3 {
			return noPeers
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("err %v after %d calls, want success at the third", err, calls)
	}
	if settling(noPeers, electionBound) {
		t.Error("a 503 past the bound is still retried")
	}
	calls = 0
	bad := &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeBadRequest}
	if err := retryEach(context.Background(), 0, func(context.Context) error { calls++; return bad }); !errors.Is(err, bad) || calls != 1 {
		t.Fatalf("a 400 was tried %d times (%v)", calls, err)
	}
}
