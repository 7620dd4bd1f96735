package cmdutil

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestDurationValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"90s", 90 * time.Second, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"0", 0, ""},
		{"-3s", 0, "a duration cannot be negative"},
		{"-0s", 0, ""},
		{"5", 0, "want a duration such as 90s, 10m or 1h30m"},
		{"soon", 0, "want a duration such as 90s, 10m or 1h30m"},
	} {
		var d time.Duration
		err := Duration(&d, 7).Set(tc.in)
		switch {
		case tc.err == "" && (err != nil || d != tc.want):
			t.Errorf("%q: %v, %v; want %v", tc.in, d, err, tc.want)
		case tc.err != "" && (err == nil || err.Error() != tc.err || d != 7):
			t.Errorf("%q: %v (value %v); want %q and the value left as it was", tc.in, err, d, tc.err)
		}
	}
}

// The flag's name and the value given are in the message, whichever flag
// package reads it.
func TestDurationValueInFlagSets(t *testing.T) {
	var d time.Duration
	pf := pflag.NewFlagSet("wait", pflag.ContinueOnError)
	pf.SetOutput(io.Discard)
	pf.Var(Duration(&d, 0), "timeout", "give up after this long")
	err := pf.Parse([]string{"--timeout", "-3s"})
	if want := `invalid argument "-3s" for "--timeout" flag: a duration cannot be negative`; err == nil || err.Error() != want {
		t.Errorf("pflag: %v, want %s", err, want)
	}
	if u := pf.FlagUsages(); !strings.Contains(u, "--timeout duration") || strings.Contains(u, "default") {
		t.Errorf("pflag help: %q", u)
	}
	fs := flag.NewFlagSet("wait", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(Duration(&d, 15*time.Second), "heartbeat", "report this often")
	err = fs.Parse([]string{"-heartbeat=-1m"})
	if want := `invalid value "-1m" for flag -heartbeat: a duration cannot be negative`; err == nil || err.Error() != want {
		t.Errorf("flag: %v, want %s", err, want)
	}
	if d != 15*time.Second {
		t.Errorf("flag: the default is %v, want 15s", d)
	}
}
