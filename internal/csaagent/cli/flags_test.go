package cli

import (
	"fmt"
	"io"
	"strings"
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

// --acp takes its sessions and prompts from the protocol, not flags.
func TestACPRefusesRunFlags(t *testing.T) {
	if o, err := parseFlags([]string{"--acp", "--model", "anthropic/x", "--permission-mode", "acceptEdits"}, io.Discard); err != nil || !o.acp {
		t.Fatalf("--acp with session settings: %+v, %v", o, err)
	}
	for _, args := range [][]string{{"--acp", "-p", "x"}, {"--acp", "hello"}, {"--acp", "--resume", "id"}} {
		if _, err := parseFlags(args, io.Discard); err == nil || !strings.Contains(err.Error(), "--acp takes its sessions") {
			t.Errorf("%q: error %v", args, err)
		}
	}
}
