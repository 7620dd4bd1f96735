package resource

import (
	"errors"
	"fmt"
	"strings"
)

// Enforcement modes: the closed set of resources.enforcement_mode.
const (
	Required   = "Required"   // refuse to run without the preferred layer or a limit
	BestEffort = "BestEffort" // the best layer there is, with a warning
	Off        = "Off"        // no limits
)

// Modes lists the enforcement modes.
var Modes = []string{Required, BestEffort, Off}

// Auto prefers the best layer available (resources.sandbox).
const Auto = "auto"

// ParseMode accepts an enforcement mode in any letter case and returns
// its canonical spelling.
func ParseMode(s string) (string, error) {
	for _, m := range Modes {
		if strings.EqualFold(s, m) {
			return m, nil
		}
	}
	return "", fmt.Errorf("%q is not one of %s", s, strings.Join(Modes, ", "))
}

// ParseLayer accepts a preferred sandbox layer: auto or one of Order.
func ParseLayer(s string) (string, error) {
	if s == Auto || index(Order, s) >= 0 {
		return s, nil
	}
	return "", fmt.Errorf("%q is not one of %s, %s", s, Auto, strings.Join(Order, ", "))
}

// Plan is how a run's limits will be enforced.
type Plan struct {
	Layer  string `json:"layer"`
	Limits Limits `json:"limits"`
	// Warning says why a BestEffort run got less than it asked for.
	Warning string `json:"warning,omitempty"`
}

// RefusedError is a Required run that cannot be enforced here.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// ErrNothingToEnforce refuses a Required run that sets no limit: it would
// run unconfined, which is what Required is there to prevent.
var ErrNothingToEnforce = errors.New("enforcement_mode Required, but no limit is set " +
	"(memory_max_mb, memory_swap_max_mb or pids_max; --memory-max-mb, --memory-swap-max-mb or --pids-max): nothing would be enforced")

// enforces reports whether layer can enforce every requested limit.
func enforces(layer string, lim Limits) (bool, string) {
	switch layer {
	case LayerSystemd, LayerCgroup2, LayerCgroup1:
		return true, ""
	case LayerSetrlimit:
		var miss []string
		if lim.PidsMax > 0 {
			miss = append(miss, "pids_max")
		}
		if lim.MemorySwapMaxMB > 0 {
			miss = append(miss, "memory_swap_max_mb")
		}
		if len(miss) > 0 {
			return false, "setrlimit cannot enforce " + strings.Join(miss, " and ")
		}
		return true, ""
	}
	return !lim.Any(), "no limits are enforced"
}

// Decide picks the layer for a run from what the host offers, the
// enforcement mode and the preferred layer (auto for the best there is).
func Decide(c *Capabilities, mode, preferred string, lim Limits) (Plan, error) {
	if mode == Required && !lim.Any() {
		return Plan{}, ErrNothingToEnforce
	}
	if mode == Off || !lim.Any() {
		return Plan{Layer: LayerNone, Limits: lim}, nil
	}
	if preferred == "" {
		preferred = Auto
	}
	candidates := Order
	if preferred != Auto {
		i := index(Order, preferred)
		if i < 0 {
			return Plan{}, fmt.Errorf("unknown sandbox layer %q", preferred)
		}
		candidates = Order[i:]
	}
	if mode == Required {
		for _, l := range candidates {
			st := c.Status(l)
			ok, why := enforces(l, lim)
			switch {
			case st.Available && ok:
				return Plan{Layer: l, Limits: lim}, nil
			case preferred != Auto:
				if !st.Available {
					why = st.Reason
				}
				return Plan{}, &RefusedError{fmt.Sprintf("enforcement_mode Required: the %s layer cannot be used here: %s", l, why)}
			}
		}
		return Plan{}, &RefusedError{"enforcement_mode Required: no sandbox layer here can enforce the limits (" + reasons(c) + ")"}
	}
	for _, l := range candidates {
		st := c.Status(l)
		if !st.Available {
			continue
		}
		p := Plan{Layer: l, Limits: lim}
		ok, why := enforces(l, lim)
		if l != candidates[0] || !ok {
			p.Warning = fmt.Sprintf("resource limits degraded to the %s layer", l)
			if !ok {
				p.Warning += " (" + why + ")"
			}
			p.Warning += ": " + reasons(c)
		}
		return p, nil
	}
	return Plan{Layer: LayerNone, Limits: lim, Warning: "no sandbox layer is available: " + reasons(c)}, nil
}

func reasons(c *Capabilities) string {
	var r []string
	for _, l := range c.Layers {
		if !l.Available {
			r = append(r, l.Layer+": "+l.Reason)
		}
	}
	return strings.Join(r, "; ")
}

func index(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}
