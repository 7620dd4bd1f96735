package wait

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
)

// remoteWatch follows remote sessions for a wait that mixes them with
// local ones: one `csa-cluster wait --watch` for the whole wait, which
// prints the remote sessions as a JSON line whenever they change (csa
// itself links no NATS).
type remoteWatch struct {
	ids    []string
	mu     sync.Mutex
	latest map[string]Entry
	err    error
	stop   context.CancelFunc
}

func startRemoteWatch(ctx context.Context, ids []string) (*remoteWatch, error) {
	exe, err := proc.Sibling(clustercmd.Program)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, exe, append([]string{"wait", "--watch", "--json", "--"}, ids...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		stop()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		stop()
		return nil, err
	}
	rw := &remoteWatch{ids: ids, latest: map[string]Entry{}, stop: stop}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var es []Entry
			if json.Unmarshal(sc.Bytes(), &es) != nil {
				continue
			}
			rw.mu.Lock()
			for _, e := range es {
				rw.latest[e.ID] = e
			}
			rw.mu.Unlock()
		}
		werr := cmd.Wait()
		if ctx.Err() != nil {
			return
		}
		rw.mu.Lock()
		defer rw.mu.Unlock()
		rw.err = watchError(werr, stderr.String())
	}()
	return rw, nil
}

// watchError is csa-cluster's failure as csa reports it: its error and
// exit status (not_found is 2).
func watchError(err error, stderr string) error {
	msg := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	msg = strings.TrimPrefix(msg, "csa: ")
	var je struct {
		Error struct{ Code, Message string }
	}
	code := "cluster_failed"
	if json.Unmarshal([]byte(msg), &je) == nil && je.Error.Message != "" {
		msg, code = je.Error.Message, je.Error.Code
	}
	if msg == "" {
		msg = "remote sessions: csa-cluster wait ended"
	}
	exit := cmdutil.ExitFailed
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		exit = ee.ExitCode()
	}
	return &cmdutil.Error{Code: code, Exit: exit, Err: errors.New(msg)}
}

// entry is remote session id as last seen (pending until the first
// answer).
func (rw *remoteWatch) entry(id string) (Entry, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.err != nil {
		return Entry{}, rw.err
	}
	e, ok := rw.latest[id]
	if !ok {
		return Entry{ID: id, State: "unknown", outcome: pending}, nil
	}
	e.outcome = headless(session.Status(e.State))
	return e, nil
}
