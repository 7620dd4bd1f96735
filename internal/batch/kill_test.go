package batch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/taskgraph"
)

// runnerEnv makes the test binary a csa batch: "DIR ID" runs batch ID of
// the store in DIR with runs that never end, starting programs all the
// while (as csa batch starts `csa run` and `csa wait`).
const runnerEnv = "CSA_BATCH_TEST_RUNNER"

func TestMain(m *testing.M) {
	if v := os.Getenv(runnerEnv); v != "" {
		dir, id, _ := strings.Cut(v, " ")
		_, err := Run(context.Background(), &Store{Dir: dir}, id, forkingRuns{}, Options{})
		fmt.Println("error:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// forkingRuns start at once and are waited for without end, forking
// children meanwhile.
type forkingRuns struct{}

func (forkingRuns) Start(context.Context, *taskgraph.Task, string) error { return nil }

func (forkingRuns) Exists(context.Context, string) bool { return true }

// Wait says "ready" once it has started a program.
func (forkingRuns) Wait(ctx context.Context, _ string) (taskgraph.Outcome, error) {
	started := make(chan struct{}, 2)
	for range 2 {
		go func() {
			for {
				exec.Command("/bin/true").Run()
				select {
				case started <- struct{}{}:
				default:
				}
			}
		}()
	}
	<-started
	fmt.Println("ready")
	<-ctx.Done()
	return taskgraph.Outcome{}, ctx.Err()
}

// TestResumeRightAfterSIGKILL: a csa batch SIGKILLed while it starts
// programs (whose forked children hold a copy of its lock's descriptor
// until their exec) is no longer running once reaped, and the next csa
// batch of it is not refused busy (issue 23: 1 in 30 was; 2 or 3 of 30
// rounds here were before the fix).
func TestResumeRightAfterSIGKILL(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	for i := range 30 {
		b := &Batch{Dir: t.TempDir(), Tasks: []Task{{ID: "a", Prompt: "echo a"}}}
		if err := s.Create(b, time.Now()); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), runnerEnv+"="+s.Dir+" "+b.ID)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: the batch said %q", i, line)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if s.running(b.ID) {
			t.Errorf("round %d: a killed batch is running", i)
		}
		if _, err := Run(context.Background(), s, b.ID, newAgents(), Options{}); errors.Is(err, ErrBusy) {
			t.Fatalf("round %d: resume right after the SIGKILL: %v", i, err)
		} else if err != nil {
			t.Fatal(err)
		}
	}
}
