package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// parseJSON reads {"tasks": [...]} or a top-level array of tasks, in one
// pass of the decoder.
func parseJSON(file string, data []byte) ([]Task, error) {
	at := newLineIndex(data)
	tasks, err := jsonTasks(data, at)
	var se *json.SyntaxError
	var fe *FileError
	switch {
	case errors.As(err, &se):
		return nil, &FileError{File: file, Line: at.at(int(se.Offset)), Msg: "invalid JSON: " + se.Error()}
	case errors.As(err, &fe):
		fe.File = file
		return nil, fe
	case err != nil:
		return nil, &FileError{File: file, Msg: "invalid JSON: " + err.Error()}
	}
	return tasks, nil
}

// jsonTasks walks the document's tokens to each task, and decodes it
// where it stands.
func jsonTasks(data []byte, at lineIndex) ([]Task, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	var tasks []Task
	switch tok {
	case json.Delim('['):
		if tasks, err = jsonArray(dec, data, at); err != nil {
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
				return nil, &FileError{Line: at.at(skipSpace(data, off)), Msg: fmt.Sprintf("unknown key %q: want \"tasks\"", k)}
			}
			if seen {
				return nil, &FileError{Line: at.at(skipSpace(data, off)), Msg: `a second "tasks"`}
			}
			seen = true
			if t, err := dec.Token(); err != nil {
				return nil, err
			} else if t != json.Delim('[') {
				return nil, &FileError{Line: at.at(int(dec.InputOffset())), Msg: `"tasks" is an array of tasks`}
			}
			if tasks, err = jsonArray(dec, data, at); err != nil {
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
		return nil, &FileError{Line: at.at(int(dec.InputOffset())), Msg: "text after the tasks"}
	}
	return tasks, nil
}

// jsonArray reads the tasks of an array whose '[' was just read, and its
// ']'. Offsets in the decoder's errors about a value count from the value.
func jsonArray(dec *json.Decoder, data []byte, at lineIndex) ([]Task, error) {
	var out []Task
	for dec.More() {
		off := skipSpace(data, int(dec.InputOffset()))
		n, line := len(out)+1, at.at(off)
		if off >= len(data) || data[off] != '{' {
			return nil, &FileError{Line: line, Msg: fmt.Sprintf("task %d is not an object", n)}
		}
		var t Task
		err := dec.Decode(&t)
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, err // not JSON: parseJSON says so
		case errors.As(err, &te):
			return nil, &FileError{Line: at.at(off + int(te.Offset)), Msg: fmt.Sprintf("task %d: %s: want %s, not %s", n, te.Field, te.Type, te.Value)}
		case err != nil && strings.HasPrefix(err.Error(), "json: unknown field "):
			return nil, &FileError{Line: line, Msg: fmt.Sprintf("unknown key %s in a task: want %s", strings.TrimPrefix(err.Error(), "json: unknown field "), keys)}
		case err != nil:
			return nil, &FileError{Line: line, Msg: fmt.Sprintf("task %d: %v", n, err)}
		}
		t.Line = line
		out = append(out, t)
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
