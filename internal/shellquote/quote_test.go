package shellquote

import (
	"os/exec"
	"testing"
)

func TestQuoteRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", "a b\n$HOME `x` \\ \"q\""} {
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+Quote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("Quote(%q) -> %q, %v", s, out, err)
		}
	}
	if IfNeeded("/usr/bin/tmux") != "/usr/bin/tmux" || IfNeeded("a b") != "'a b'" || IfNeeded("") != "''" {
		t.Error("IfNeeded quotes the wrong words")
	}
}
