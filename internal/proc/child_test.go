package proc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCapture(t *testing.T) {
	c, err := Capture(context.Background(), Spec{
		Path: "/bin/sh", Args: []string{"-c", `cat; echo out; echo err >&2; exit 3`},
		Stdin: strings.NewReader("in\n"),
	}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Stdout) != "in\nout\n" || c.Stderr != "err\n" || c.ExitCode != 3 {
		t.Fatalf("got %+v", c)
	}
}

func TestCaptureStderrTail(t *testing.T) {
	c, err := Capture(context.Background(), Spec{
		Path: "/bin/sh", Args: []string{"-c", `head -c 200000 /dev/zero | tr '\0' x >&2; echo END >&2`},
	}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Stderr) != MaxStderr || !strings.HasSuffix(c.Stderr, "xEND\n") {
		t.Fatalf("stderr tail: %d bytes, ends %q", len(c.Stderr), c.Stderr[len(c.Stderr)-8:])
	}
}

// A context that ends stops the child's whole group, SIGKILL after the
// grace when SIGTERM is ignored.
func TestCaptureContextStopsGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	c, err := Capture(ctx, Spec{
		Path: "/bin/sh", Args: []string{"-c", `trap '' TERM; echo started; sleep 60 & wait`},
	}, 300*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's", err)
	}
	if c == nil || string(c.Stdout) != "started\n" || c.ExitCode != -1 {
		t.Fatalf("got %+v", c)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s", d)
	}
}

func TestCaptureStartFailure(t *testing.T) {
	if _, err := Capture(context.Background(), Spec{Path: "/no/such/program"}, time.Second); err == nil {
		t.Fatal("no error for a missing program")
	}
}
