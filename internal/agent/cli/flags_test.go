package cli

import (
	"fmt"
	"io"
	"testing"
)

func TestRuleListsSplitOutsideParentheses(t *testing.T) {
	o, err := parseFlags([]string{"--allowedTools", "Bash(git diff:*),Edit", "--allowedTools", "Bash(echo a, b) Read",
		"--disallowedTools", "WebFetch", "-p", "x"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%q", o.allowed); got != `["Bash(git diff:*)" "Edit" "Bash(echo a, b)" "Read"]` {
		t.Fatalf("allowed %s", got)
	}
	if got := fmt.Sprintf("%q", o.disallowed); got != `["WebFetch"]` {
		t.Fatalf("disallowed %s", got)
	}
}
