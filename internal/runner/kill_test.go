package runner

import (
	"testing"
	"time"
)

// A kill request carries the grace csa kill gives; one left by an older
// csa is the bare reason, and leaves the run's own grace.
func TestParseKillRequest(t *testing.T) {
	ms := func(n time.Duration) *time.Duration { d := n * time.Millisecond; return &d }
	for _, c := range []struct {
		in     string
		reason string
		grace  *time.Duration
	}{
		{`{"reason":"killed by csa kill","grace_ms":1000}`, "killed by csa kill", ms(1000)},
		{`{"reason":"killed by csa rm --force","grace_ms":0}`, "killed by csa rm --force", ms(0)},
		{`{"reason":"x"}`, "x", nil},
		{"killed by csa kill\n", "killed by csa kill", nil},
		{"", "killed by csa kill", nil},
	} {
		r := parseKillRequest([]byte(c.in))
		g := r.grace()
		if r.Reason != c.reason || (g == nil) != (c.grace == nil) || (g != nil && *g != *c.grace) {
			t.Errorf("%q: reason %q grace %v, want %q %v", c.in, r.Reason, g, c.reason, c.grace)
		}
	}
}
