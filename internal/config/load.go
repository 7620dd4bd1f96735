package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/csa-dev/csa/internal/csaenv"
)

// Scopes of configuration files.
const (
	ScopeGlobal  = "global"
	ScopeProject = "project"
)

// Source is a configuration file that Load looked at.
type Source struct {
	Path   string // "" when there is no such file to look at (no home directory)
	Scope  string // ScopeGlobal or ScopeProject
	Exists bool
}

// Loaded is the effective configuration and where it came from.
type Loaded struct {
	Config  Config
	Sources []Source // global first, then project
}

// GlobalPath returns the path of the global configuration file:
// $CSA_CONFIG_HOME/config.toml if CSA_CONFIG_HOME is set, else
// $XDG_CONFIG_HOME/csa/config.toml, with XDG_CONFIG_HOME defaulting to
// ~/.config. It returns "" if none of these can be determined.
func GlobalPath() string {
	return globalPath(os.Getenv, os.UserHomeDir)
}

func globalPath(getenv func(string) string, home func() (string, error)) string {
	if d := getenv(csaenv.ConfigHome); d != "" {
		return filepath.Join(d, "config.toml")
	}
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) { // relative values are invalid per the XDG spec
		return filepath.Join(d, "csa", "config.toml")
	}
	h, err := home()
	if err != nil || h == "" {
		return ""
	}
	return filepath.Join(h, ".config", "csa", "config.toml")
}

// ProjectPath returns the path of the configuration file of the project at
// root, or "" if root is "".
func ProjectPath(root string) string {
	if root == "" {
		return ""
	}
	return filepath.Join(root, ".csa", "config.toml")
}

// Load loads the global configuration file and that of the project at
// projectRoot ("" for none); see LoadFiles.
func Load(projectRoot string) (*Loaded, error) {
	return LoadFiles(GlobalPath(), ProjectPath(projectRoot))
}

// LoadFiles returns the defaults overlaid with the file at globalPath and
// then the file at projectPath. Either file may be missing, and either path
// may be "" for none. Tables merge key by key with the later file winning;
// arrays and other values are replaced. Each file is validated on its own,
// and its problems are returned as *Error values (joined if several).
func LoadFiles(globalPath, projectPath string) (*Loaded, error) {
	l := &Loaded{Config: Default()}
	for _, src := range []Source{{Path: globalPath, Scope: ScopeGlobal}, {Path: projectPath, Scope: ScopeProject}} {
		if src.Path != "" {
			data, err := os.ReadFile(src.Path)
			switch {
			case err == nil:
				src.Exists = true
				if err := overlay(&l.Config, src.Path, data); err != nil {
					return nil, err
				}
			case errors.Is(err, fs.ErrNotExist):
			default:
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return nil, &Error{Kind: KindRead, Path: src.Path, Msg: "cannot read config: " + err.Error(), Err: err}
			}
		}
		l.Sources = append(l.Sources, src)
	}
	return l, nil
}

// overlay decodes the file at path, whose contents are data, over c and
// validates the result. Decoding into the populated struct is what merges:
// tables that the file leaves out are untouched, maps gain keys, arrays are
// replaced. c was valid before, so any problem lies in this file.
func overlay(c *Config, path string, data []byte) error {
	if err := decodeStrict(data, c); err != nil {
		return decodeError(path, data, err, reflect.TypeFor[Config]())
	}
	if ps := c.validate(); len(ps) > 0 {
		return locate(path, buildIndex(data), ps)
	}
	return nil
}

// decodeStrict decodes data over v, rejecting keys v has no field for.
// go-toml v2.2.4 panics on some type mismatches (a date into an int); that
// is reported as an error, so that a bad file cannot crash csa.
func decodeStrict(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("toml: %v", r)
		}
	}()
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// decodeError turns an error of the strict decoder into *Error values;
// schema is the type the file was decoded into.
func decodeError(path string, data []byte, err error, schema reflect.Type) error {
	var missing *toml.StrictMissingError
	if errors.As(err, &missing) {
		errs := make([]*Error, len(missing.Errors))
		for i := range missing.Errors {
			de := &missing.Errors[i]
			p := problem{kind: KindUnknownKey, key: de.Key()}
			e := &Error{Kind: KindUnknownKey, Path: path, Key: joinKey(p.key), Msg: p.message()}
			e.Line, e.Col = de.Position()
			errs[i] = e
		}
		return join(errs)
	}

	// A syntax error, or a type or value the decoder rejected: decode into
	// plain maps to tell which, and to find the key.
	var doc map[string]any
	if perr := toml.Unmarshal(data, &doc); perr != nil {
		e := &Error{Kind: KindSyntax, Path: path, Msg: "invalid toml: " + strings.TrimPrefix(perr.Error(), "toml: "), Err: perr}
		var de *toml.DecodeError
		if errors.As(perr, &de) {
			e.Line, e.Col = de.Position()
			if fixed, col, ok := unquoted(data, e.Line, e.Col); ok {
				e.Col, e.Msg = col, "value must be quoted: "+fixed
			}
		} else {
			e.Line = lineOf(data, perr.Error())
		}
		return e
	}
	ix := buildIndex(data)
	if ps := check(doc, schema); len(ps) > 0 {
		return locate(path, ix, ps)
	}

	// check should have found the problem; report the decoder's words.
	e := &Error{Kind: KindValue, Path: path, Msg: strings.TrimPrefix(err.Error(), "toml: "), Err: err}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		e.Line, e.Col = de.Position()
		if e.Key = ix.keyAt(position{e.Line, e.Col}); e.Key != "" {
			e.Msg = "invalid value for " + `"` + e.Key + `": ` + e.Msg
		}
	}
	return e
}

// lineOf returns the line of data at which decoding first fails with the
// message msg, or 0. It places errors that go-toml reports without a
// position, such as a key defined twice, by decoding ever longer prefixes.
func lineOf(data []byte, msg string) int {
	const maxLines = 1000 // bounds the quadratic cost
	for n, end := 1, 0; n <= maxLines && end < len(data); n++ {
		if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(data)
		}
		var m map[string]any
		if err := toml.Unmarshal(data[:end], &m); err != nil && err.Error() == msg {
			return n
		}
	}
	return 0
}
