package clustercmd

import (
	"context"
	"encoding/json"
	"errors"

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
