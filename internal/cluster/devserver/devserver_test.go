package devserver_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/devserver"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// The dev server takes csa's streams and buckets (one replica), keeps
// them in its directory, and a queued run survives a restart.
func TestDevServerKeepsState(t *testing.T) {
	dir := devserver.Dir(t.TempDir())
	s, err := devserver.Start(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := open(ctx, t, s.URL())
	r, err := c.Submit(ctx, remoterun.Request{Tool: "codex", Prompt: "echo hi", Cwd: "/"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c.NC.Close()
	s.Stop()
	if _, err := os.Stat(filepath.Join(dir, "jetstream")); err != nil {
		t.Fatalf("no JetStream state in %s: %v", dir, err)
	}

	s, err = devserver.Start(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c = open(ctx, t, s.URL())
	defer c.NC.Close()
	got, _, err := c.Get(ctx, r.ID)
	if err != nil || got.Status != session.Pending || got.PromptBytes != len("echo hi") {
		t.Fatalf("after a restart: %+v, %v", got, err)
	}
	st, err := c.Status(ctx)
	if err != nil || st.Queue.Waiting != 1 {
		t.Fatalf("queue after a restart: %+v, %v", st, err)
	}
}

func open(ctx context.Context, t *testing.T, url string) *cluster.Cluster {
	t.Helper()
	nc, err := cluster.Connect(config.ClusterConfig{URL: url}, "test")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
