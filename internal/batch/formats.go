package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// parseTOML reads [[task]] tables, each placed at its header's line.
func parseTOML(file string, data []byte) ([]Task, error) {
	var doc struct {
		Task []Task `toml:"task"`
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&doc)
	var missing *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case errors.As(err, &missing):
		de := missing.Errors[0]
		line, _ := de.Position()
		key := de.Key()
		if len(key) == 1 {
			return nil, &FileError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q: tasks are [[task]] tables", key[0])}
		}
		return nil, &FileError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q in a task: want %s", key[len(key)-1], keys)}
	case errors.As(err, &de):
		line, _ := de.Position()
		return nil, &FileError{File: file, Line: line, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	case err != nil:
		return nil, &FileError{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	lines := taskLines(data)
	for i := range doc.Task {
		if i < len(lines) {
			doc.Task[i].Line = lines[i]
		}
	}
	return doc.Task, nil
}

// keys are a task's keys, for messages.
const keys = "id, name, prompt, tool, tier, model, depends_on, cwd, timeout"

// taskLines are the lines of the [[task]] headers, in order (none when
// the tasks are written as an inline array).
func taskLines(data []byte) []int {
	var p unstable.Parser
	p.Reset(data)
	var out []int
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.ArrayTable {
			continue
		}
		it := e.Key()
		if !it.Next() {
			continue
		}
		if first := it.Node(); string(first.Data) == "task" && !it.Next() {
			out = append(out, p.Shape(first.Raw).Start.Line)
		}
	}
	return out
}

// jsonTask is a task's raw JSON and where it begins.
type jsonTask struct {
	raw  json.RawMessage
	off  int
	line int
}

// parseJSON reads {"tasks": [...]} or a top-level array of tasks.
func parseJSON(file string, data []byte) ([]Task, error) {
	raws, err := jsonTasks(data)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, &FileError{File: file, Line: lineAt(data, int(se.Offset)), Msg: "invalid JSON: " + se.Error()}
	case err != nil:
		var fe *FileError
		if errors.As(err, &fe) {
			fe.File = file
			return nil, fe
		}
		return nil, &FileError{File: file, Msg: "invalid JSON: " + err.Error()}
	}
	tasks := make([]Task, len(raws))
	for i, r := range raws {
		dec := json.NewDecoder(bytes.NewReader(r.raw))
		dec.DisallowUnknownFields()
		err := dec.Decode(&tasks[i])
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return nil, &FileError{File: file, Line: lineAt(data, r.off+int(te.Offset)),
				Msg: fmt.Sprintf("task %d: %s: want %s, not %s", i+1, te.Field, te.Type, te.Value)}
		case err != nil && strings.HasPrefix(err.Error(), "json: unknown field "):
			return nil, &FileError{File: file, Line: r.line,
				Msg: fmt.Sprintf("unknown key %s in a task: want %s", strings.TrimPrefix(err.Error(), "json: unknown field "), keys)}
		case err != nil:
			return nil, &FileError{File: file, Line: r.line, Msg: fmt.Sprintf("task %d: %v", i+1, err)}
		}
		tasks[i].Line = r.line
	}
	return tasks, nil
}

// jsonTasks walks the document's tokens to find each task and its offset.
func jsonTasks(data []byte) ([]jsonTask, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	var tasks []jsonTask
	switch tok {
	case json.Delim('['):
		if tasks, err = jsonArray(dec, data); err != nil {
			return nil, err
		}
	case json.Delim('{'):
		seen := false
		for dec.More() {
			off := int(dec.InputOffset())
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			if k != "tasks" {
				return nil, &FileError{Line: lineAt(data, skipSpace(data, off)), Msg: fmt.Sprintf("unknown key %q: want \"tasks\"", k)}
			}
			if seen {
				return nil, &FileError{Line: lineAt(data, skipSpace(data, off)), Msg: `a second "tasks"`}
			}
			seen = true
			if t, err := dec.Token(); err != nil {
				return nil, err
			} else if t != json.Delim('[') {
				return nil, &FileError{Line: lineAt(data, int(dec.InputOffset())), Msg: `"tasks" is an array of tasks`}
			}
			if tasks, err = jsonArray(dec, data); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	default:
		return nil, &FileError{Line: 1, Msg: `want {"tasks": [...]} or an array of tasks`}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &FileError{Line: lineAt(data, int(dec.InputOffset())), Msg: "text after the tasks"}
	}
	return tasks, nil
}

// jsonArray reads the elements of an array whose '[' was just read, and
// its ']'.
func jsonArray(dec *json.Decoder, data []byte) ([]jsonTask, error) {
	var out []jsonTask
	for dec.More() {
		off := skipSpace(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(raw, []byte("{")) {
			return nil, &FileError{Line: lineAt(data, off), Msg: fmt.Sprintf("task %d is not an object", len(out)+1)}
		}
		out = append(out, jsonTask{raw: raw, off: off, line: lineAt(data, off)})
	}
	_, err := dec.Token() // ']'
	return out, err
}

// skipSpace moves off past white space and the comma before a value.
func skipSpace(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}
