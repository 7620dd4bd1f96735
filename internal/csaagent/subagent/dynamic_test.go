package subagent

import (
	"slices"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// A subagent gets the MCP tools its definition names, one by one or a
// whole server, from the list as it is at each request.
func TestDynamicToolsByDefinition(t *testing.T) {
	current := []tool.Tool{named("mcp__a__x"), named("mcp__a__y"), named("mcp__b__z")}
	all := func() []tool.Tool { return current }
	names := func(f func() []tool.Tool) []string {
		var out []string
		for _, t := range f() {
			out = append(out, t.Name())
		}
		return out
	}
	if got := names(dynamicFor(all, Definition{})); len(got) != 3 {
		t.Fatalf("no tools list inherits all: %q", got)
	}
	pick := dynamicFor(all, Definition{Tools: []string{"Read", "mcp__a", "mcp__b__z"}})
	if got := names(pick); !slices.Equal(got, []string{"mcp__a__x", "mcp__a__y", "mcp__b__z"}) {
		t.Fatalf("server and tool named: %q", got)
	}
	only := dynamicFor(all, Definition{Tools: []string{"mcp__a__y"}})
	current = append(current, named("mcp__a__new"))
	if got := names(only); !slices.Equal(got, []string{"mcp__a__y"}) {
		t.Fatalf("one tool named: %q", got)
	}
	if got := names(pick); !slices.Contains(got, "mcp__a__new") {
		t.Fatalf("a tool the server added since: %q", got)
	}
	if got := names(dynamicFor(all, Definition{Tools: []string{}})); len(got) != 0 {
		t.Fatalf("an empty tools list: %q", got)
	}
}
