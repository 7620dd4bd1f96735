// Package clustercmd is `csa cluster` and `csa worker`, and csa's one
// client of csa-cluster (client.go), through which every csa command
// that reaches the cluster starts it. The work is done by csa-cluster, a
// program built and installed beside csa, so that csa itself links no
// NATS code (it would slow every csa start).
package clustercmd

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// withJSON adds --json when csa was given it.
func withJSON(f *cmdutil.Factory, args ...string) []string {
	if f.JSON {
		return append(args, "--json")
	}
	return args
}

// NewCmd builds `csa cluster`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Remote runs through NATS JetStream: dev (a server on this machine), status",
		Long: `csa can queue runs for workers on other machines through a NATS JetStream
cluster ([cluster] url in csa's config): csa worker on each machine, csa run --remote
to queue. csa cluster dev starts an embedded JetStream server on this machine to
try it; csa cluster status shows the workers, the queue, the servers and the streams.
The work is done by csa-cluster, built and installed beside csa.`,
		Args: cobra.NoArgs,
	}
	var port int
	dev := &cobra.Command{
		Use:   "dev [--port N]",
		Short: "An embedded JetStream server on 127.0.0.1 (state in csa's state directory), until Ctrl-C; prints its URL",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return HandOver(withJSON(f, "dev", "--port", strconv.Itoa(port))...)
		},
	}
	dev.Flags().IntVar(&port, "port", 4222, "port on 127.0.0.1 (0: any free port)")
	status := &cobra.Command{
		Use:   "status",
		Short: "Workers (labels, capacity, running, last heartbeat), queue depth, servers and stream health",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return HandOver(withJSON(f, "status")...)
		},
	}
	cmd.AddCommand(dev, status)
	return cmd
}

// NewWorkerCmd builds `csa worker`.
func NewWorkerCmd(f *cmdutil.Factory) *cobra.Command {
	var labels, name string
	var max int
	cmd := &cobra.Command{
		Use:   "worker [--labels k=v,...] [--max-concurrent N]",
		Short: "Take remote runs from the cluster's queue and run them here, until SIGINT or SIGTERM",
		Long: `Take run requests from the cluster's work queue ([cluster] url) while fewer than
--max-concurrent of them run here, the tool is installed and enabled, the memory
pre-flight check passes and the run's --labels are all among this worker's. Each
runs as a detached local run of this machine's csa (its config, limits and
adapters apply), mirrored into the cluster: its state for csa ps and csa wait on any
machine, its events to its own subject. The worker heartbeats every second; a
worker silent for 5 s is lost, and its running sessions end crashed, "worker lost".
SIGINT or SIGTERM stops taking runs; the worker exits when those it took have ended.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			args := []string{"worker", "--max-concurrent", strconv.Itoa(max)}
			if labels != "" {
				args = append(args, "--labels", labels)
			}
			if name != "" {
				args = append(args, "--name", name)
			}
			return HandOver(args...)
		},
	}
	cmd.Flags().StringVar(&labels, "labels", "", "this worker's labels, k=v,...")
	cmd.Flags().IntVar(&max, "max-concurrent", 2, "remote runs at once on this worker")
	cmd.Flags().StringVar(&name, "name", "", "worker id (default HOST-PID-SUFFIX)")
	return cmd
}
