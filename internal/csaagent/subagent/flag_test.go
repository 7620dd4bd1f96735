package subagent

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseFlag(t *testing.T) {
	defs, err := ParseFlag(`{"rev": {"description": "d", "prompt": "p", "tools": ["Read", " Grep "], "model": "haiku"},
		"all": {"description": "d", "prompt": "p", "tools": "*"}, "-bad": {"description": "d", "prompt": "p"}}`)
	if err == nil || !strings.Contains(err.Error(), `"-bad" left out`) || len(defs) != 2 {
		t.Fatalf("%+v %v", defs, err)
	}
	if all, rev := defs[0], defs[1]; all.Name != "all" || all.Tools != nil || rev.Name != "rev" ||
		fmt.Sprint(rev.Tools) != "[Read Grep]" || rev.Model != "haiku" || rev.Prompt != "p" {
		t.Fatalf("%+v", defs)
	}
	if defs, err := ParseFlag(`{"ok": {"description": "d", "prompt": "p"}, "no": {"prompt": "p"}}`); defs != nil || err == nil {
		t.Fatalf("an agent without a description did not void the flag: %+v %v", defs, err)
	}
}

func TestWithFlagLosesToTheOrganisation(t *testing.T) {
	defs := []Definition{Builtin(), {Name: "a", Path: "/p/.claude/agents/a.md"}, {Name: "m", Path: "/managed/m.md"}}
	got := WithFlag(defs, []Definition{{Name: "a", Prompt: "flag"}, {Name: "m", Prompt: "flag"}, {Name: "n", Prompt: "flag"}}, "/managed")
	if len(got) != 4 || got[1].Prompt != "flag" || got[2].Path != "/managed/m.md" || got[3].Name != "n" {
		t.Fatalf("%+v", got)
	}
}
