package perm_test

import (
	"encoding/json"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/tools"
)

func TestRefusedTellsFinalDenials(t *testing.T) {
	cwd := t.TempDir()
	bash, _ := tools.ByName("Bash")
	p := perm.NewPolicy(perm.Default, nil, mustRules(t, "Bash(rm:*)"), cwd, nil)
	cmd := func(c string) json.RawMessage { b, _ := json.Marshal(map[string]string{"command": c}); return b }
	for _, tc := range []struct {
		mode         perm.Mode
		command      string
		allow, final bool
	}{
		{perm.Default, "rm -rf x", false, true},           // a deny rule
		{perm.BypassPermissions, "rm -rf x", false, true}, // whatever the mode
		{perm.Default, "make", false, false},              // nobody granted it
		{perm.Plan, "make", false, true},                  // plan mode is read-only
		{perm.BypassPermissions, "make", true, false},
	} {
		p.SetMode(tc.mode)
		d, final := p.Refused(bash, cmd(tc.command))
		if d.Allow != tc.allow || final != tc.final {
			t.Errorf("%s %q: allow %v final %v, want %v %v (%s)", tc.mode, tc.command, d.Allow, final, tc.allow, tc.final, d.Reason)
		}
	}
}
