package cmdutil

import (
	"errors"
	"time"
)

// DurationValue is the value of every duration flag of csa and of its
// programs, for cobra's flags and the standard flag package alike: Go's
// durations (90s, 10m, 1h30m), never negative. Zero is taken; each flag's
// help says what it means there (no limit, the default, none). A bad value
// is a usage error naming the flag and the value (exit 2).
type DurationValue struct{ d *time.Duration }

// Duration sets *p to def and returns the flag value that sets it:
// fs.Var(cmdutil.Duration(&o.Timeout, 0), "timeout", "...").
func Duration(p *time.Duration, def time.Duration) *DurationValue {
	*p = def
	return &DurationValue{p}
}

// Set reads a value given on the command line.
func (v *DurationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return errors.New("want a duration such as 90s, 10m or 1h30m")
	case d < 0:
		return errors.New("a duration cannot be negative")
	}
	*v.d = d
	return nil
}

// String is the value as help shows it; "0" for none, which help leaves
// out as it does pflag's own zero values. The flag package may call it on
// a zero DurationValue.
func (v *DurationValue) String() string {
	if v == nil || v.d == nil || *v.d == 0 {
		return "0"
	}
	return v.d.String()
}

// Type names the value in help (--timeout duration).
func (v *DurationValue) Type() string { return "duration" }
