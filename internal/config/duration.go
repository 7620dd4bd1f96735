package config

import (
	"fmt"
	"time"
)

// Duration is a positive time.Duration written in the configuration as a
// string such as "30s", "5m" or "1h30m". The empty string means "not set"
// and is the zero Duration; zero and negative durations are rejected.
type Duration time.Duration

// UnmarshalText parses a duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q (want e.g. \"30s\", \"5m\", \"1h30m\")", s)
	}
	if v <= 0 {
		return fmt.Errorf("duration %q must be positive (use \"\" for none)", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalText formats the duration as UnmarshalText reads it: "" when unset.
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(d.String()), nil
}

// String returns the duration as in the configuration file, "" when unset.
func (d Duration) String() string {
	if d == 0 {
		return ""
	}
	return time.Duration(d).String()
}

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }
