package cmdutil

import (
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/tmux"
)

// Tmux is the private tmux server of a project's interactive sessions.
func (f *Factory) Tmux(store *session.Store) (tmux.Server, error) {
	bin, err := tmux.Find()
	if err != nil {
		return tmux.Server{}, Refused("tmux_missing", err)
	}
	sock, err := tmux.SocketPath(f.Getenv("XDG_RUNTIME_DIR"), store.Root())
	if err != nil {
		return tmux.Server{}, err
	}
	return tmux.Server{Bin: bin, Socket: sock}, nil
}

// TmuxFor is the server an interactive session runs on.
func TmuxFor(st *session.State) (tmux.Server, error) {
	bin, err := tmux.Find()
	if err != nil {
		return tmux.Server{}, Refused("tmux_missing", err)
	}
	return tmux.Server{Bin: bin, Socket: st.Interactive.Socket}, nil
}

// Classifier is the classifier's settings from the configuration.
func Classifier(c *config.Config) interactive.Settings {
	ic := c.Interactive
	return interactive.Settings{Grace: ic.Grace.Std(), Quiet: ic.Quiet.Std(), StuckAfter: ic.StuckAfter.Std()}
}
