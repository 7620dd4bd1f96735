package session

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"

	"github.com/csa-dev/csa/internal/verbatim"
)

var replacement = []byte(string(utf8.RuneError))

// Encode is st as its state file holds it. A field that is not valid
// UTF-8 is written as text with U+FFFD for each byte that is not, and its
// exact bytes kept in raw_bytes (st.RawBytes is set here), so any prompt,
// path or answer reads back as it was.
func Encode(st *State) ([]byte, error) {
	st.RawBytes = verbatim.Collect(st)
	data, err := toml.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encode state of %s: %w", st.ID, err)
	}
	if st.RawBytes != nil {
		// Only string values can hold such bytes: the keys are csa's.
		data = bytes.ToValidUTF8(data, replacement)
	}
	return data, nil
}

// Decode reads a state file of session id. A file it cannot read whole (a
// byte that is not text, from a csa that wrote such bytes raw; a field
// damaged on disk) is read field by field: what can be read is, and the
// rest is named in Damaged, so the session still shows.
func Decode(data []byte, id string) (*State, error) {
	st := new(State)
	if err := toml.Unmarshal(data, st); err != nil {
		var lerr error
		st, lerr = decodeLenient(data)
		if lerr != nil {
			return nil, &CorruptError{ID: id, Err: err}
		}
	}
	if bad := verbatim.Restore(st, st.RawBytes); len(bad) > 0 {
		st.Damaged = append(st.Damaged, bad...)
	}
	if st.ID != id || !st.Status.Valid() {
		return nil, &CorruptError{ID: id, Err: fmt.Errorf("state names id %q, status %q", st.ID, st.Status)}
	}
	return st, nil
}

// keyLine is the start of a key/value statement. csa writes every value
// on one line (go-toml writes strings with escapes and arrays inline), so
// a statement is a line and the lines that continue it.
var keyLine = regexp.MustCompile(`^\s*([A-Za-z0-9_-]+)\s*=`)

// decodeLenient reads data statement by statement: a statement that holds
// bytes that are not UTF-8 is read with U+FFFD in their place, one that
// does not parse is left out; both are named in Damaged.
func decodeLenient(data []byte) (*State, error) {
	var good bytes.Buffer
	var damaged []string
	table := ""
	var stmt []string
	key := ""
	flush := func() {
		if len(stmt) == 0 {
			return
		}
		text := strings.Join(stmt, "\n")
		stmt = nil
		if key == "" {
			good.WriteString(strings.ToValidUTF8(text, "") + "\n") // blank lines and comments
			return
		}
		path := "/" + key
		if table != "" {
			path = "/" + table + "/" + key
		}
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, string(replacement))
			damaged = append(damaged, path)
		}
		var probe map[string]any
		if toml.Unmarshal([]byte(text), &probe) != nil {
			if len(damaged) == 0 || damaged[len(damaged)-1] != path {
				damaged = append(damaged, path)
			}
			return
		}
		good.WriteString(text + "\n")
	}
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "["):
			flush()
			key = ""
			table = strings.Trim(strings.TrimSpace(strings.ToValidUTF8(trimmed, "")), "[]")
			good.WriteString(strings.ToValidUTF8(trimmed, "") + "\n")
		case keyLine.MatchString(line):
			flush()
			key = keyLine.FindStringSubmatch(line)[1]
			stmt = []string{line}
		default:
			if key == "" {
				flush()
			}
			stmt = append(stmt, line)
		}
	}
	flush()
	st := new(State)
	if err := toml.Unmarshal(good.Bytes(), st); err != nil {
		return nil, err
	}
	st.Damaged = append(st.Damaged, damaged...)
	return st, nil
}
