// Package remoterun is a remote run as csa asks for it: the request a
// worker takes from the cluster's queue, and the policy that fills it
// from csa run's options and configuration. It links no NATS code, so
// that csa builds the request and csa-cluster only ships and queues it
// (cmd/csa/deps_test.go keeps NATS out of csa).
package remoterun

import (
	"fmt"
	"io"

	"github.com/csa-dev/csa/internal/verbatim"
)

// MaxRetries bounds --retries.
const MaxRetries = 10

// Request is one queued run: what a worker needs to start it.
type Request struct {
	ID          string            `json:"id"`
	Tool        string            `json:"tool"`
	Model       string            `json:"model,omitempty"`
	Effort      string            `json:"effort,omitempty"`
	Prompt      string            `json:"prompt"`
	Cwd         string            `json:"cwd"`
	Labels      map[string]string `json:"labels,omitempty"`
	TimeoutMS   int64             `json:"timeout_ms,omitempty"`
	Depth       int               `json:"depth"`
	ParentID    string            `json:"parent_id,omitempty"`
	ParentTool  string            `json:"parent_tool,omitempty"`
	ProjectRoot string            `json:"project_root"`
	// Tree is the caller's working tree; nil: run in Cwd on the worker.
	Tree *TreeRef `json:"tree,omitempty"`
	// Retries: how many times the run may be queued again when its
	// worker is lost. Attempt is the attempt this request starts (0 and
	// 1: the first).
	Retries int `json:"retries,omitempty"`
	Attempt int `json:"attempt,omitempty"`
	// RunFlags are flags of csa run for the worker's local run, as
	// name=value (runner.RemoteFlags only).
	RunFlags []string `json:"run_flags,omitempty"`
	// RawBytes keeps the exact bytes of the fields above that are not
	// UTF-8 (internal/verbatim): requests are written with
	// verbatim.Marshal and read with verbatim.Unmarshal.
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// TreeRef is where a remote run's working tree comes from: a commit, in
// a bundle of the object store or on a git remote, plus the caller's
// uncommitted diff.
type TreeRef struct {
	Commit string `json:"commit"`
	// Subdir is the run's directory inside the tree ("" for its top).
	Subdir string `json:"subdir,omitempty"`
	// Bundle is the object holding the bundle; Remote the git URL
	// holding Commit instead.
	Bundle string `json:"bundle,omitempty"`
	Remote string `json:"remote,omitempty"`
	// Diff is the object holding the uncommitted diff; "" for none.
	Diff       string `json:"diff,omitempty"`
	DiffBytes  int    `json:"diff_bytes"`
	BundleSize int64  `json:"bundle_bytes,omitempty"`
}

// Write hands req over as one JSON document, every byte of its strings
// kept (a prompt need not be UTF-8).
func Write(w io.Writer, req *Request) error {
	b, err := verbatim.Marshal(req)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Read is the request Write wrote.
func Read(r io.Reader) (*Request, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read the request: %w", err)
	}
	var req Request
	bad, err := verbatim.Unmarshal(b, &req)
	if err != nil {
		return nil, fmt.Errorf("the request is not JSON: %w", err)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("the request's raw_bytes do not restore %v", bad)
	}
	return &req, nil
}
