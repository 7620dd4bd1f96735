package clustercmd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/errline"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session/psrow"
)

// Program is the cluster program built with csa. Every start of it is
// here: csa hands a command over to it, calls it, or reads it as it runs.
const Program = "csa-cluster"

const cluster = proc.Program(Program)

// HandOver runs csa-cluster with args in place of csa. It returns only on
// failure.
func HandOver(args ...string) error {
	return cluster.Become(args...)
}

// failure is csa-cluster's failure as csa reports it: the code and
// message of its error line, with its exit status.
func failure(command string, e *proc.Ended) error {
	code, msg := errline.Parse(e.Stderr)
	if code == "" {
		code, msg = "cluster_failed", strings.TrimPrefix(msg, "csa: ")
	}
	if msg == "no answer" {
		msg = fmt.Sprintf("%s %s ended (exit status %d) and said nothing", Program, command, e.ExitCode)
	}
	exit := e.ExitCode
	if exit <= 0 {
		exit = cmdutil.ExitFailed
	}
	return &cmdutil.Error{Code: code, Exit: exit, Err: errors.New(msg)}
}

// Call runs csa-cluster with args and returns its standard output; a
// failure is an error with csa-cluster's exit status and error line.
func Call(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	e, err := cluster.Run(ctx, proc.Call{Args: args, Stdout: &out})
	if err != nil {
		return out.Bytes(), err
	}
	if e.ExitCode != 0 {
		return out.Bytes(), failure(args[0], e)
	}
	return out.Bytes(), nil
}

// Submit queues req through `csa-cluster submit`, which ships the working
// tree (none with remoteCwd) and prints the session id (as JSON with
// asJSON) on out; its errors go to errOut as it writes them.
func Submit(ctx context.Context, req *remoterun.Request, remoteCwd, asJSON bool, env []string, out, errOut io.Writer) error {
	var body bytes.Buffer
	if err := remoterun.Write(&body, req); err != nil {
		return err
	}
	args := []string{"submit", "--request", "-"}
	if remoteCwd {
		args = append(args, "--remote-cwd")
	}
	if asJSON {
		args = append(args, "--json")
	}
	e, err := cluster.Run(ctx, proc.Call{Args: args, Env: env, Stdin: &body, Stdout: out, Stderr: errOut})
	if err != nil {
		return err
	}
	if e.ExitCode != 0 {
		return &cmdutil.Silent{Exit: e.ExitCode}
	}
	return nil
}

// RemoteRows is a running `csa-cluster ps --rows`: the remote sessions
// (this project's, or all) as csa ps lists them.
type RemoteRows struct {
	run    *proc.Running
	stdout bytes.Buffer
	err    error
}

// StartRows starts listing the remote sessions, so that csa reads its
// local ones meanwhile; now is the listing's time (the end of a running
// session's duration). Wait gives the rows.
func StartRows(ctx context.Context, all bool, now time.Time) *RemoteRows {
	r := &RemoteRows{}
	args := []string{"ps", "--rows", "--now", strconv.FormatInt(now.UnixNano(), 10)}
	if all {
		args = append(args, "--all")
	}
	r.run, r.err = cluster.Start(ctx, proc.Call{Args: args, Stdout: &r.stdout})
	return r
}

// Wait is the rows, by id, each the JSON csa ps --json lists (copied as
// csa-cluster encoded it: psrow's encoder, the one csa's own rows use)
// with the remote session's id on its worker.
func (r *RemoteRows) Wait() (rows [][]byte, aliases []string, err error) {
	if r.err != nil {
		return nil, nil, fmt.Errorf("remote sessions: %w", r.err)
	}
	e, err := r.run.Wait()
	if err == nil && e.ExitCode != 0 {
		err = failure("ps", e)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("remote sessions: csa-cluster ps: %w", err)
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

// Watch runs `csa-cluster wait --watch` on ids, which prints the
// sessions as one JSON line whenever they change: line gets each line,
// and ended csa-cluster's failure (nil when ctx ended it) once it has
// ended and its lines are read.
func Watch(ctx context.Context, ids []string, line func([]byte), ended func(error)) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	run, err := cluster.Start(ctx, proc.Call{Args: append([]string{"wait", "--watch", "--json", "--"}, ids...), Stdout: pw})
	pw.Close()
	if err != nil {
		pr.Close()
		return err
	}
	go func() {
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line(sc.Bytes())
		}
		io.Copy(io.Discard, pr) // a line too long: the rest, so that the program is not blocked
		e, err := run.Wait()
		switch {
		case err != nil || ctx.Err() != nil:
			ended(nil)
		case e.ExitCode != 0:
			ended(failure("wait", e))
		default:
			ended(&cmdutil.Error{Code: "cluster_failed", Exit: cmdutil.ExitFailed, Err: errors.New("remote sessions: csa-cluster wait ended")})
		}
	}()
	return nil
}
