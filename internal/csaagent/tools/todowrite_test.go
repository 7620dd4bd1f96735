package tools

import (
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

func TestTodoWrite(t *testing.T) {
	env := newEnv(t)
	tw := NewTodoWrite()
	todo := func(content, status string) map[string]any {
		return map[string]any{"content": content, "status": status, "activeForm": content + "ing"}
	}
	tests := []struct {
		name    string
		todos   []map[string]any
		wantErr bool
		want    string
	}{
		{"ok", []map[string]any{todo("Build", "in_progress"), todo("Test", "pending"), todo("Plan", "completed")}, false, "modified successfully"},
		{"empty list", []map[string]any{}, false, "modified successfully"},
		{"bad status", []map[string]any{todo("Build", "doing")}, true, `status "doing"`},
		{"two in progress", []map[string]any{todo("A", "in_progress"), todo("B", "in_progress")}, true, "at most one"},
		{"empty content", []map[string]any{todo(" ", "pending")}, true, "empty content"},
	}
	for _, tt := range tests {
		before := env.Todos.List()
		check(t, tt.name, call(t, tw, env, map[string]any{"todos": tt.todos}), tt.wantErr, tt.want)
		after := env.Todos.List()
		if tt.wantErr && len(after) != len(before) {
			t.Errorf("%s: a rejected list replaced the todos", tt.name)
		}
		if !tt.wantErr && len(after) != len(tt.todos) {
			t.Errorf("%s: %d todos stored", tt.name, len(after))
		}
	}
	call(t, tw, env, map[string]any{"todos": []map[string]any{todo("Build", "in_progress")}})
	if got := env.Todos.List(); got[0] != (tool.Todo{Content: "Build", Status: "in_progress", ActiveForm: "Building"}) {
		t.Errorf("stored %+v", got)
	}
	if tw.ConcurrencySafe(nil) || !tw.ReadOnly(nil) {
		t.Error("TodoWrite: want unsafe to run concurrently, read-only")
	}
}
