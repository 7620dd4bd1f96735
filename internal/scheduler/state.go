package scheduler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
)

// Scheduler keeps the shared rotation and cooldown state under
// $CSA_STATE_DIR/scheduler, each file changed under its own lock.
type Scheduler struct {
	dir string
	now func() time.Time
}

// New returns the scheduler of a state directory.
func New(stateDir string, now func() time.Time) *Scheduler {
	return &Scheduler{dir: filepath.Join(stateDir, "scheduler"), now: now}
}

const lockWait = 5 * time.Second

// withLock runs fn holding the lock of name.
func (s *Scheduler) withLock(name string, fn func() error) error {
	if err := fsutil.MkdirPrivate(s.dir); err != nil {
		return err
	}
	l := lock.New(filepath.Join(s.dir, name+".lock"))
	if err := l.LockTimeout(context.Background(), lockWait); err != nil {
		return err
	}
	defer l.Unlock()
	return fn()
}

// Order returns the tier's specs in the order to try them: for priority
// as listed, for round-robin starting one further on each call (across
// every csa process). Specs of providers cooling down go last.
func (s *Scheduler) Order(name string, tier config.TierConfig, aliases map[string]string) ([]Spec, error) {
	specs := make([]Spec, 0, len(tier.Models))
	for _, m := range tier.Models {
		sp, err := ParseSpec(m, aliases)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("tier %s has no models", name)
	}
	if tier.Strategy == "round-robin" {
		var start int
		err := s.withLock("rr-"+name, func() error {
			path := filepath.Join(s.dir, "rr-"+name)
			b, _ := os.ReadFile(path)
			n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			start = n % len(specs)
			return fsutil.WriteFileReplace(path, []byte(strconv.Itoa(n+1)))
		})
		if err != nil {
			return nil, err
		}
		specs = append(specs[start:], specs[:start]...)
	}
	cool, err := s.Cooldowns()
	if err != nil {
		return nil, err
	}
	var ready, cooling []Spec
	for _, sp := range specs {
		if _, ok := cool[sp.ProviderKey()]; ok {
			cooling = append(cooling, sp)
		} else {
			ready = append(ready, sp)
		}
	}
	return append(ready, cooling...), nil
}

// cooldownFile maps a provider to the time its cooldown ends.
type cooldownFile struct {
	Until map[string]time.Time `toml:"until"`
}

// Cooldowns returns the providers cooling down now, and until when.
func (s *Scheduler) Cooldowns() (map[string]time.Time, error) {
	out := map[string]time.Time{}
	b, err := os.ReadFile(filepath.Join(s.dir, "cooldowns.toml"))
	if err != nil {
		return out, nil
	}
	var f cooldownFile
	if toml.Unmarshal(b, &f) != nil {
		return out, nil // a broken file only forgets cooldowns
	}
	now := s.now()
	for k, t := range f.Until {
		if t.After(now) {
			out[k] = t
		}
	}
	return out, nil
}

// Cooldown puts a provider on cooldown for d, for every csa process.
func (s *Scheduler) Cooldown(provider string, d time.Duration) error {
	return s.withLock("cooldowns", func() error {
		path := filepath.Join(s.dir, "cooldowns.toml")
		var f cooldownFile
		if b, err := os.ReadFile(path); err == nil {
			toml.Unmarshal(b, &f)
		}
		if f.Until == nil {
			f.Until = map[string]time.Time{}
		}
		now := s.now()
		for k, t := range f.Until {
			if !t.After(now) {
				delete(f.Until, k)
			}
		}
		until := now.Add(d).UTC()
		if until.After(f.Until[provider]) {
			f.Until[provider] = until
		}
		b, err := toml.Marshal(f)
		if err != nil {
			return err
		}
		return fsutil.WriteFileReplace(path, b)
	})
}

// retryAfterRe is compiled on first use, not at every csa start.
var retryAfterRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)retry[ -_]?after\D{0,12}?(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?)?\b`)
})

// RetryAfter finds a provider's "retry after" in an error message.
func RetryAfter(msg string) (time.Duration, bool) {
	m := retryAfterRe().FindStringSubmatch(msg)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	if strings.HasPrefix(strings.ToLower(m[2]), "m") {
		return time.Duration(v * float64(time.Millisecond)), true
	}
	return time.Duration(v * float64(time.Second)), true
}
