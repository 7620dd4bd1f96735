package clustercmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
)

// Configured is the cluster of the current directory's configuration;
// ok is false when there is none (or the file does not load: the local
// command reports that itself).
func Configured(f *cmdutil.Factory) (config.ClusterConfig, bool) {
	l, _, err := f.CwdConfig()
	if err != nil || !l.Config.Cluster.Enabled() {
		return config.ClusterConfig{}, false
	}
	return l.Config.Cluster, true
}

// Sessions are the remote sessions (this project's, or all) as csa-cluster
// lists them: their state, and the worker each runs on.
func Sessions(ctx context.Context, all bool) ([]RemoteSession, error) {
	exe, err := proc.Sibling(Program)
	if err != nil {
		return nil, err
	}
	args := []string{"ps", "--json"}
	if all {
		args = append(args, "--all")
	}
	out, err := proc.Output(ctx, exe, args...)
	if err != nil {
		return nil, errors.New("remote sessions: csa-cluster ps: " + lastLine(out) + ": " + err.Error())
	}
	var rs []RemoteSession
	if err := json.Unmarshal(out, &rs); err != nil {
		return nil, errors.New("remote sessions: csa-cluster ps printed no list: " + err.Error())
	}
	return rs, nil
}

// RemoteSession is one row of csa-cluster ps --json.
type RemoteSession struct {
	session.State
	Remote struct {
		Worker string `json:"worker"`
		// LocalID is the session that runs it in its worker's store: the
		// parent id of the sessions its agent starts there.
		LocalID string `json:"local_id"`
	} `json:"remote"`
}

func lastLine(b []byte) string {
	s := string(b)
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}

// Split resolves ids in store; those it does not hold are remote when a
// cluster is configured (whole ids: csa-cluster does not complete
// prefixes). Without a cluster an unknown id is the store's not-found
// error, as before.
func Split(f *cmdutil.Factory, store *session.Store, ids []string) (local, remote []string, err error) {
	_, cl := Configured(f)
	for _, id := range ids {
		full, err := store.Resolve(id)
		var nf *session.NotFoundError
		if errors.As(err, &nf) && cl {
			remote = append(remote, id)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		local = append(local, full)
	}
	return local, remote, nil
}

// Call runs csa-cluster with args and returns its standard output; a
// failure is an error with csa-cluster's exit status and its last line
// of standard error.
func Call(ctx context.Context, args ...string) ([]byte, error) {
	exe, err := proc.Sibling(Program)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		return out, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		msg := strings.TrimPrefix(lastLine(stderr.Bytes()), "csa: ")
		code := "cluster_failed"
		var je struct {
			Error struct{ Code, Message string }
		}
		if json.Unmarshal([]byte(msg), &je) == nil && je.Error.Message != "" {
			msg, code = je.Error.Message, je.Error.Code
		}
		return out, &cmdutil.Error{Code: code, Exit: ee.ExitCode(), Err: errors.New(msg)}
	}
	return out, fmt.Errorf("%s: %w", Program, err)
}
