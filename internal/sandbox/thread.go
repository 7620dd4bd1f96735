package sandbox

import (
	"fmt"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Ruleset is a policy made into a Landlock ruleset in csa's own process,
// to be put on the one thread that starts the program (proc.Spec.Confine):
// no program runs between csa and the agent, so confining costs what
// building the rules costs.
type Ruleset struct {
	fd    int
	flags uint32
}

// Build makes the ruleset of p (see Apply).
func Build(p *Policy) (*Ruleset, error) {
	config, rules, err := landlockOf(p)
	if err != nil {
		return nil, err
	}
	fd, flags, err := config.NewRulesetFD(rules...)
	if err != nil {
		return nil, fmt.Errorf("landlock: %w", err)
	}
	return &Ruleset{fd: fd, flags: flags}, nil
}

// RestrictThread confines the calling OS thread (and what it starts) for
// good: the caller must lock the thread and never give it back.
func (r *Ruleset) RestrictThread() error {
	if r.fd < 0 {
		return nil // nothing the kernel handles: best effort found no Landlock
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(r.fd, r.flags); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// Close releases the ruleset once the program is started.
func (r *Ruleset) Close() {
	if r.fd >= 0 {
		unix.Close(r.fd)
	}
}
