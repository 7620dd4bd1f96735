package errline

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct{ stderr, code, msg string }{
		{"warning: x\n" + string(Marshal("session_exists", "session 01X exists")) + "\n", "session_exists", "session 01X exists"},
		{string(Marshal("a", "first")) + "\n" + string(Marshal("b", "last")), "b", "last"},
		{"csa: plain failure\n", "", "csa: plain failure"},
		{"", "", "no answer"},
	} {
		if code, msg := Parse(c.stderr); code != c.code || msg != c.msg {
			t.Errorf("Parse(%q) = %q, %q; want %q, %q", c.stderr, code, msg, c.code, c.msg)
		}
	}
}
