package mention

import (
	"reflect"
	"testing"
)

func TestFiles(t *testing.T) {
	for text, want := range map[string][]Ref{
		"Review @src/app.go, then @notes.md.":          {{Path: "src/app.go"}, {Path: "notes.md"}},
		`@"my notes.txt" and @a.go and @a.go again`:    {{Path: "my notes.txt"}, {Path: "a.go"}},
		"see @log.txt#L10-20 and @x.go#L5 and @y#frag": {{Path: "log.txt", Start: 10, End: 20}, {Path: "x.go", Start: 5, End: 5}, {Path: "y"}},
		"mail me@example.com, no mention":              nil,
		`ask @"reviewer (agent)" about it`:             nil,
		"first line\n@second/line.md":                  {{Path: "second/line.md"}},
	} {
		if got := Files(text); !reflect.DeepEqual(got, want) {
			t.Errorf("Files(%q) = %+v, want %+v", text, got, want)
		}
	}
}
