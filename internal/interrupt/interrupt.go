// Package interrupt turns the signals a user sends csa (Ctrl-C, kill,
// a closed terminal) into the cancellation of the one context main hands
// down: the first one cancels it with a *Signal as its cause, a second
// one closes Again, for whatever must stop at once.
package interrupt

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Signal is the cause of a context ended by a signal.
type Signal struct{ Sig os.Signal }

func (s *Signal) Error() string { return "interrupted by " + Name(s.Sig) }

// Name is a signal's name, such as SIGINT.
func Name(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if n := unix.SignalName(s); n != "" {
			return n
		}
	}
	return sig.String()
}

// Terminal are the signals that end a command: Ctrl-C, kill, a closed
// terminal.
var Terminal = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

type againKey struct{}

// Notify returns a context cancelled with a *Signal when one of cancel
// arrives; a second one closes Again(ctx). The signals in keep are caught
// too but change nothing: the process survives them (a pane wrapper
// leaves Ctrl-C to the agent in its terminal). stop ends the delivery.
//
// The signals are caught from a goroutine of their own, whose start (a
// tenth of a millisecond) overlaps the command's: until Ready(ctx) returns,
// a signal still has its default effect and ends csa, which is right for
// a command that has started nothing yet.
func Notify(parent context.Context, cancel, keep []os.Signal) (ctx context.Context, stop func()) {
	ctx, cancelCause := context.WithCancelCause(parent)
	again, ready := make(chan struct{}), make(chan struct{})
	ctx = context.WithValue(ctx, againKey{}, (<-chan struct{})(again))
	ctx = context.WithValue(ctx, readyKey{}, (<-chan struct{})(ready))
	c := make(chan os.Signal, 4)
	done := make(chan struct{})
	go func() {
		signal.Notify(c, append(append([]os.Signal(nil), cancel...), keep...)...)
		close(ready)
		n := 0
		for {
			select {
			case <-done:
				return
			case sig := <-c:
				if !in(sig, cancel) {
					continue
				}
				if n++; n == 1 {
					cancelCause(&Signal{Sig: sig})
				} else if n == 2 {
					close(again)
				}
			}
		}
	}()
	return ctx, func() {
		<-ready
		signal.Stop(c)
		close(done)
		cancelCause(context.Canceled)
	}
}

type readyKey struct{}

// Ready waits until the signals of ctx are caught. A command waits for it
// before it starts what an interrupt must stop and record (an agent).
func Ready(ctx context.Context) {
	if c, ok := ctx.Value(readyKey{}).(<-chan struct{}); ok {
		<-c
	}
}

func in(sig os.Signal, set []os.Signal) bool {
	for _, s := range set {
		if s == sig {
			return true
		}
	}
	return false
}

// Again is closed on the second interrupt (nil when ctx has none).
func Again(ctx context.Context) <-chan struct{} {
	c, _ := ctx.Value(againKey{}).(<-chan struct{})
	return c
}

// Cause is the signal that ended ctx, if one did.
func Cause(ctx context.Context) (*Signal, bool) {
	var s *Signal
	if errors.As(context.Cause(ctx), &s) {
		return s, true
	}
	return nil, false
}

// Is reports whether err is, or wraps, an interruption by a signal.
func Is(err error) bool {
	var s *Signal
	return errors.As(err, &s)
}

// Pause waits d, or returns ctx's cause when ctx ends first: every wait a
// user may interrupt (a polling loop, a backoff) goes through it.
func Pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
