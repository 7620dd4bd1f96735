package modelserver

import (
	"fmt"
	"testing"
)

func TestCallArgsTakeTheWorkingDirectory(t *testing.T) {
	st := &Step{Calls: []ToolCall{{Name: "Read", Args: map[string]any{"file_path": "{cwd}/a.txt", "n": int64(3),
		"nested": map[string]any{"paths": []any{"{cwd}/b", "c"}}}}}}
	calls, err := resolveCalls(st, &request{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(calls[0].Args)
	if want := "map[file_path:/w/a.txt n:3 nested:map[paths:[/w/b c]]]"; got != want {
		t.Fatalf("args %s, want %s", got, want)
	}
	// Without a working directory in the request the text stays as it is.
	calls, _ = resolveCalls(&Step{Call: &ToolCall{Name: "Read", Args: map[string]any{"file_path": "{cwd}/a"}}}, &request{})
	if p := calls[0].Args["file_path"]; p != "{cwd}/a" {
		t.Fatalf("file_path %v", p)
	}
}
