package cli

import (
	"context"
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/acpagent"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/csaagent/thread"
)

// serveACP is `csa-agent --acp`: an Agent Client Protocol agent on stdio
// whose sessions are opened like `csa-agent -p` with the same flags
// (--model, --permission-mode, --settings, rules), until the client goes.
func serveACP(ctx context.Context, o *options, sio IO) int {
	h := &host{io: sio, base: *o}
	acpagent.Serve(ctx, acpagent.Config{
		Host:    h,
		Version: Version,
		History: func(id string) ([]llm.Message, error) {
			return store.Load(store.Path(store.Dir(sio.Getenv), id))
		},
		Mode: func(th thread.Thread) string { return modesOf(th).Mode() },
		SetMode: func(th thread.Thread, mode string) error {
			return modesOf(th).SetMode(mode)
		},
		Warn: func(msg string) { fmt.Fprintln(sio.Stderr, "csa-agent:", msg) },
		Log:  sio.Stderr,
	}, sio.Stdin, sio.Stdout)
	return exitOK
}

// modesOf is the permission modes of a thread this package opened.
func modesOf(th thread.Thread) modes { return modes{th.(*live).s.policy} }
