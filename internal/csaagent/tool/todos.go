package tool

import "sync"

// Todo is one item of the agent's todo list.
type Todo struct {
	Content    string `json:"content" jsonschema:"The task, imperative form (e.g. \"Run tests\")" jsonschema_extras:"minLength=1"`
	Status     string `json:"status" jsonschema_extras:"enum=pending|in_progress|completed"`
	ActiveForm string `json:"activeForm" jsonschema:"The task in present continuous form, shown while it runs (e.g. \"Running tests\")" jsonschema_extras:"minLength=1"`
}

// Todos is the agent's todo list, replaced whole by TodoWrite.
type Todos struct {
	mu    sync.Mutex
	items []Todo
}

// Set replaces the list.
func (t *Todos) Set(items []Todo) {
	t.mu.Lock()
	t.items = append([]Todo(nil), items...)
	t.mu.Unlock()
}

// List returns a copy of the list.
func (t *Todos) List() []Todo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Todo(nil), t.items...)
}
