package batch

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// keys are a task's keys, for messages.
const keys = "id, name, prompt, tool, tier, model, depends_on, cwd, timeout, worktree, isolate"

var taskKeys = strings.Split(keys, ", ")

// parseTOML reads [[task]] tables, each placed at its header's line. An
// unknown key is found by one walk of the document (tomlShape), not by the
// decoder's strict mode: that one places every unknown key it collects by
// counting lines from the start, minutes for a large file with one in
// every task.
func parseTOML(file string, data []byte) ([]Task, error) {
	var doc struct {
		Task []Task `toml:"task"`
	}
	var de *toml.DecodeError
	switch err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc); {
	case errors.As(err, &de):
		line, _ := de.Position()
		return nil, &FileError{File: file, Line: line, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	case err != nil:
		return nil, &FileError{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	lines, bad := tomlShape(data)
	if bad != nil {
		bad.File = file
		return nil, bad
	}
	for i := range doc.Task {
		if i < len(lines) {
			doc.Task[i].Line = lines[i]
		}
	}
	return doc.Task, nil
}

// tomlShape walks the document once: the lines of the [[task]] headers, in
// order (none when the tasks are written as an inline array), and the
// first key that is neither "task" at the top nor a task's. Keys match as
// the decoder matches them, whatever their case.
func tomlShape(data []byte) ([]int, *FileError) {
	at := newLineIndex(data)
	unknown := func(k *unstable.Node, inTask bool) *FileError {
		line := at.at(int(k.Raw.Offset))
		if inTask {
			return &FileError{Line: line, Msg: fmt.Sprintf("unknown key %q in a task: want %s", k.Data, keys)}
		}
		return &FileError{Line: line, Msg: fmt.Sprintf("unknown key %q: tasks are [[task]] tables", k.Data)}
	}
	var p unstable.Parser
	p.Reset(data)
	var lines []int
	inTask := false // the keys that follow are a task's
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts := keyParts(e)
			if !strings.EqualFold(string(parts[0].Data), "task") {
				return nil, unknown(parts[0], false)
			}
			if len(parts) > 1 && !isTaskKey(parts[1].Data) {
				return nil, unknown(parts[1], true)
			}
			if len(parts) == 1 && e.Kind == unstable.ArrayTable {
				lines = append(lines, at.at(int(parts[0].Raw.Offset)))
			}
			inTask = true
		case unstable.KeyValue:
			k := keyParts(e)[0]
			switch {
			case inTask && !isTaskKey(k.Data):
				return nil, unknown(k, true)
			case inTask:
			case !strings.EqualFold(string(k.Data), "task"):
				return nil, unknown(k, false)
			default:
				if bad := inlineTasks(e.Value(), unknown); bad != nil {
					return nil, bad
				}
			}
		}
	}
	return lines, nil
}

// inlineTasks checks the keys of the tasks of task = [{...}, ...].
func inlineTasks(v *unstable.Node, unknown func(*unstable.Node, bool) *FileError) *FileError {
	if v.Kind != unstable.Array {
		return nil // the decoder has refused it
	}
	for it := v.Children(); it.Next(); {
		t := it.Node()
		if t.Kind != unstable.InlineTable {
			continue
		}
		for kv := t.Children(); kv.Next(); {
			if k := keyParts(kv.Node())[0]; !isTaskKey(k.Data) {
				return unknown(k, true)
			}
		}
	}
	return nil
}

func keyParts(n *unstable.Node) []*unstable.Node {
	var parts []*unstable.Node
	for it := n.Key(); it.Next(); {
		parts = append(parts, it.Node())
	}
	return parts
}

func isTaskKey(k []byte) bool {
	for _, t := range taskKeys {
		if strings.EqualFold(string(k), t) {
			return true
		}
	}
	return false
}
