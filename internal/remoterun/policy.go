package remoterun

import (
	"fmt"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/runner"
)

// Options is what csa run was asked for a remote run.
type Options struct {
	Tool, Model, Effort string
	Prompt              string
	// Cwd is the agent's working directory (absolute); ProjectRoot the
	// project csa run found for it.
	Cwd, ProjectRoot string
	// Labels the worker must have, each k=v.
	Labels []string
	// Timeout is --timeout; nil for defaults.timeout.
	Timeout *time.Duration
	Retries int
	// RunFlags are flags of csa run for the worker's local run, as
	// name=value (runner.RemoteFlags only).
	RunFlags []string
}

// InvalidError is a remote run that cannot be asked for as given: a
// usage error.
type InvalidError struct{ msg string }

func (e *InvalidError) Error() string { return e.msg }

func invalid(format string, a ...any) error { return &InvalidError{fmt.Sprintf(format, a...)} }

// New is the request of a remote run: the tool, model and timeout from o
// or cfg's defaults, its place in the tree of runs from parent (nil for a
// run started by no session). The id and the tree are the cluster's to
// set when it is queued.
func New(cfg *config.Config, o Options, parent *runner.Parent) (*Request, error) {
	tool := o.Tool
	if tool == "" {
		tool = cfg.Defaults.Tool
	}
	if tool == "" || tool == "auto" {
		return nil, invalid("a remote run needs --tool NAME (or defaults.tool); auto is not supported remotely yet")
	}
	if o.Retries < 0 || o.Retries > MaxRetries {
		return nil, invalid("--retries takes 0 to %d, not %d", MaxRetries, o.Retries)
	}
	labels, err := ParseLabels(o.Labels...)
	if err != nil {
		return nil, err
	}
	for _, nv := range o.RunFlags {
		if err := runner.CheckRemoteFlag(nv); err != nil {
			return nil, &InvalidError{err.Error()}
		}
	}
	if err := parent.CheckDepth(cfg.MaxRecursionDepth); err != nil {
		return nil, err
	}
	timeout := cfg.Defaults.Timeout.Std()
	if o.Timeout != nil {
		timeout = *o.Timeout
	}
	req := &Request{Tool: tool, Model: o.Model, Effort: o.Effort, Prompt: o.Prompt, Cwd: o.Cwd, Labels: labels,
		TimeoutMS: timeout.Milliseconds(), ProjectRoot: o.ProjectRoot, Retries: o.Retries, RunFlags: o.RunFlags}
	if req.Model == "" {
		req.Model = cfg.Tool(tool).Model
	}
	if parent != nil {
		req.Depth, req.ParentID, req.ParentTool = parent.Depth+1, parent.SessionID, parent.Tool
		if parent.ProjectRoot != "" {
			req.ProjectRoot = parent.ProjectRoot
		}
	}
	return req, nil
}

// ParseLabels reads k=v items, each of which may itself be a
// comma-separated list.
func ParseLabels(items ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(strings.Join(items, ","), ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, invalid("--labels: %q is not k=v", kv)
		}
		out[k] = v
	}
	return out, nil
}
