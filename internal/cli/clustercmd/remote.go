package clustercmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/errline"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/session/psrow"
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

// RemoteRows is a running `csa-cluster ps --rows`: the remote sessions
// (this project's, or all) as csa ps lists them.
type RemoteRows struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	err            error
}

// StartRows starts listing the remote sessions, so that csa reads its
// local ones meanwhile; now is the listing's time (the end of a running
// session's duration). Wait gives the rows.
func StartRows(ctx context.Context, all bool, now time.Time) *RemoteRows {
	r := &RemoteRows{}
	exe, err := proc.Sibling(Program)
	if err != nil {
		r.err = err
		return r
	}
	args := []string{"ps", "--rows", "--now", strconv.FormatInt(now.UnixNano(), 10)}
	if all {
		args = append(args, "--all")
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return proc.SignalGroup(cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	if err := cmd.Start(); err != nil {
		r.err = errors.New("remote sessions: csa-cluster ps: " + err.Error())
		return r
	}
	r.cmd = cmd
	return r
}

// Wait is the rows, by id, each the JSON csa ps --json lists (copied as
// csa-cluster encoded it: psrow's encoder, the one csa's own rows use)
// with the remote session's id on its worker.
func (r *RemoteRows) Wait() (rows [][]byte, aliases []string, err error) {
	if r.err != nil {
		return nil, nil, r.err
	}
	if err := r.cmd.Wait(); err != nil {
		_, msg := errline.Parse(r.stderr.String())
		return nil, nil, errors.New("remote sessions: csa-cluster ps: " + msg + ": " + err.Error())
	}
	data := r.stdout.Bytes()
	n := bytes.Count(data, []byte{'\n'})
	rows, aliases = make([][]byte, 0, n), make([]string, 0, n)
	for len(data) > 0 {
		row, alias, rest, err := psrow.SplitLine(data)
		if err != nil {
			return nil, nil, errors.New("remote sessions: csa-cluster ps printed no list: " + err.Error())
		}
		rows, aliases, data = append(rows, row), append(aliases, alias), rest
	}
	return rows, aliases, nil
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
		code, msg := errline.Parse(stderr.String())
		if code == "" {
			code, msg = "cluster_failed", strings.TrimPrefix(msg, "csa: ")
		}
		return out, &cmdutil.Error{Code: code, Exit: ee.ExitCode(), Err: errors.New(msg)}
	}
	return out, fmt.Errorf("%s: %w", Program, err)
}
