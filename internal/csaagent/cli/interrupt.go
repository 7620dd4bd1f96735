package cli

import (
	"context"
	"os"
	"os/signal"
)

// turnContext is cancelled by the first Ctrl-C while a REPL turn runs, so
// an interrupt stops the turn, not the session.
func turnContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	go func() {
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
