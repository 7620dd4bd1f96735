// Package cluster runs csa sessions on other machines through NATS
// JetStream, an existing distributed engine rather than a scheduler of
// csa's own: run requests wait in a work-queue stream that every csa
// worker takes from through one shared durable consumer; each session's
// record lives in a key-value bucket, each worker's heartbeat in another,
// and each session's output in a stream with limits retention. Nothing
// here prints to a terminal.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/config"
)

// Names in JetStream. They are part of the wire contract between csa
// versions on different machines.
const (
	RunsStream      = "CSA_RUNS"
	RunsSubject     = "csa.runs"
	WorkersConsumer = "workers"
	SessionsBucket  = "csa_sessions"
	WorkersBucket   = "csa_workers"
	OutputStream    = "CSA_OUTPUT"
	outputPrefix    = "csa.out."
)

// OutputSubject carries the lines of session id's events (events.jsonl
// of its local run on the worker), in order, one line a message.
func OutputSubject(id string) string { return outputPrefix + id }

// RawSubject carries the bytes of session id's program's standard output
// (output.log on the worker), StderrSubject those of its standard error,
// in order, in chunks.
func RawSubject(id string) string    { return outputPrefix + id + ".raw" }
func StderrSubject(id string) string { return outputPrefix + id + ".stderr" }

// Liveness of workers.
const (
	// HeartbeatEvery is how often a worker rewrites its heartbeat.
	HeartbeatEvery = time.Second
	// LostAfter: a worker whose heartbeat has not changed for this long,
	// as an observer measures it on its own clock, is lost. Clocks of
	// machines are never compared.
	LostAfter = 5 * time.Second
	// workerTTL removes a dead worker's heartbeat from the bucket.
	workerTTL = time.Minute
)

// callTimeout bounds one JetStream call: while a stream has no leader a
// call waits out its whole context, so calls are short and retried.
const callTimeout = 2 * time.Second

// Cluster is a connection with the JetStream objects csa uses.
type Cluster struct {
	NC       *nats.Conn
	JS       jetstream.JetStream
	Sessions jetstream.KeyValue
	Workers  jetstream.KeyValue
	Runs     jetstream.Stream
	Output   jetstream.Stream
}

// Connect connects to the cluster of cfg as name (shown by the servers'
// monitoring); it keeps reconnecting for as long as the process lives.
func Connect(cfg config.ClusterConfig, name string) (*nats.Conn, error) {
	if !cfg.Enabled() {
		return nil, ErrNoCluster
	}
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		// A connection whose network went away without a reset (a cable
		// pulled) is noticed in seconds, not the default 4 minutes.
		nats.PingInterval(2 * time.Second), nats.MaxPingsOutstanding(3),
		nats.Timeout(2 * time.Second), nats.RetryOnFailedConnect(false)}
	if cfg.Credentials != "" {
		opts = append(opts, nats.UserCredentials(cfg.Credentials))
	}
	if cfg.TLSCA != "" {
		opts = append(opts, nats.RootCAs(cfg.TLSCA))
	}
	if cfg.TLSCert != "" {
		opts = append(opts, nats.ClientCert(cfg.TLSCert, cfg.TLSKey))
	}
	nc, err := nats.Connect(strings.Join(cfg.URLs(), ","), opts...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to %s: %w", cfg.URL, err)
	}
	return nc, nil
}

// ErrNoCluster is returned when no cluster is configured.
var ErrNoCluster = errors.New("no cluster configured: set [cluster] url in csa's config (csa cluster dev starts one on this machine)")

// Open finds csa's streams and buckets on nc, creating those that are
// missing (three replicas on a cluster, one on a single server).
func Open(ctx context.Context, nc *nats.Conn) (*Cluster, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	c := &Cluster{NC: nc, JS: js}
	r := replicas(nc)
	err = retry(ctx, func(ctx context.Context) error {
		var err error
		if c.Runs, err = stream(ctx, js, jetstream.StreamConfig{
			Name: RunsStream, Subjects: []string{RunsSubject}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Replicas: r, Duplicates: 2 * time.Minute,
		}); err != nil {
			return err
		}
		if _, err = c.Runs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable: WorkersConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second,
			MaxAckPending: -1, Replicas: r,
		}); err != nil {
			return fmt.Errorf("consumer %s: %w", WorkersConsumer, err)
		}
		if c.Output, err = stream(ctx, js, jetstream.StreamConfig{
			Name: OutputStream, Subjects: []string{outputPrefix + ">"}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Replicas: r, MaxAge: 30 * 24 * time.Hour,
		}); err != nil {
			return err
		}
		if c.Sessions, err = bucket(ctx, js, jetstream.KeyValueConfig{Bucket: SessionsBucket, Replicas: r,
			Storage: jetstream.FileStorage}); err != nil {
			return err
		}
		c.Workers, err = bucket(ctx, js, jetstream.KeyValueConfig{Bucket: WorkersBucket, Replicas: r,
			Storage: jetstream.FileStorage, TTL: workerTTL})
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// replicas is 3 on a cluster of three or more servers, else 1.
func replicas(nc *nats.Conn) int {
	if nc.ConnectedClusterName() != "" && len(nc.Servers()) >= 3 {
		return 3
	}
	return 1
}

func stream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	s, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = js.CreateStream(ctx, cfg)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			s, err = js.Stream(ctx, cfg.Name)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", cfg.Name, err)
	}
	return s, nil
}

func bucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, cfg.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, cfg)
		if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			kv, err = js.KeyValue(ctx, cfg.Bucket)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", cfg.Bucket, err)
	}
	return kv, nil
}

// retry runs fn with a short timeout per attempt until it succeeds or ctx
// ends: a JetStream call made while a stream elects its leader fails,
// and the next one succeeds.
func retry(ctx context.Context, fn func(context.Context) error) error {
	return retryEach(ctx, callTimeout, fn)
}

// retryTransfer is retry for a transfer that may take long (an object
// of the store): each attempt has the whole of ctx, so only what fails at
// once (no responders while a new stream elects its leader, a
// reconnection) is tried again.
func retryTransfer(ctx context.Context, fn func(context.Context) error) error {
	return retryEach(ctx, 0, fn)
}

// retryEach tries fn until it succeeds, fails for good, or ctx ends;
// each attempt within perCall (0: no bound of its own).
func retryEach(ctx context.Context, perCall time.Duration, fn func(context.Context) error) error {
	start := time.Now()
	for {
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if perCall > 0 {
			cctx, cancel = context.WithTimeout(ctx, perCall)
		}
		err := fn(cctx)
		cancel()
		if err == nil || ctx.Err() != nil || !transient(err) && !settling(err, time.Since(start)) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// propagation bounds how long a stream or consumer just made elsewhere
// may be unknown to the server this client asks (a cluster's metadata
// reaches every server shortly after the create).
const propagation = 10 * time.Second

// settling is an error that a cluster just made, or that just lost a
// server, gives for a while: a stream or consumer not yet known here, or
// JetStream answering 503 (no peers to place replicas on yet, the meta
// leader being elected). Past its bound it is an answer.
func settling(err error, after time.Duration) bool {
	var api *jetstream.APIError
	switch {
	case notYetSeen(err):
		return after < propagation
	case errors.As(err, &api) && (api.Code == 503 || api.ErrorCode == noSuitablePeers):
		return after < electionBound
	}
	return false
}

// noSuitablePeers is JetStream's "no suitable peers for placement" (400):
// a stream of three replicas asked for before every server of a cluster
// just started is seen online (both workers of a test cluster at load 11
// failed so).
const noSuitablePeers jetstream.ErrorCode = 10005

// electionBound is how long a cluster that lost a server may answer 503:
// a meta leader's election took over 10 s at load 26 on 2 cores.
const electionBound = 30 * time.Second

// notYetSeen errors name a stream or consumer this server does not know
// (yet).
func notYetSeen(err error) bool {
	return errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrConsumerNotFound)
}

// transient errors are worth another attempt.
func transient(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, nats.ErrConnectionReconnecting) || errors.Is(err, jetstream.ErrJetStreamNotEnabled)
}
