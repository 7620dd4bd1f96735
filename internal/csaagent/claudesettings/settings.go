// Package claudesettings reads the display settings csa-agent takes from
// Claude Code's settings files (outputStyle, statusLine), merged across
// the scopes as Claude Code merges them, so that one set of files serves
// both programs. Hooks, plugins and permissions read their own keys in
// their own packages.
package claudesettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ManagedFile is the organisation's settings file on Linux, Claude Code's
// policy scope.
const ManagedFile = "/etc/claude-code/managed-settings.json"

// Sources are the settings files to read; any may be "".
type Sources struct {
	Home string // ~/.claude/settings.json
	// Project is the folder of .claude/settings.json and
	// .claude/settings.local.json: Claude Code's working directory.
	Project string
	// Flag is --settings: a file, or the JSON itself when it starts
	// with "{".
	Flag string
	// Managed is the policy file (ManagedFile; a test's own).
	Managed string
}

// Settings are the keys csa-agent reads here.
type Settings struct {
	// OutputStyle names the output style ("" and "default": none).
	OutputStyle string `json:"outputStyle"`
	// StatusLine is the REPL's status line command; nil when unset.
	StatusLine *StatusLine `json:"statusLine"`
}

// StatusLine is Claude Code's statusLine setting.
type StatusLine struct {
	Type    string `json:"type"` // only "command" runs
	Command string `json:"command"`
	Padding int    `json:"padding"`
	// RefreshInterval (seconds) reruns the command on a timer as well.
	RefreshInterval int `json:"refreshInterval"`
}

// Read merges the settings in Claude Code's order of precedence, lowest
// first: the user's, the project's, the project's local file, --settings,
// then the managed file. A key a later file sets replaces an earlier
// one's. A missing file sets nothing; a file that cannot be read or
// parsed is named in the error and the others still apply.
func Read(src Sources) (Settings, error) {
	var out Settings
	var errs []error
	for _, f := range src.files() {
		data, err := f.read()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if data == nil {
			continue
		}
		var s Settings
		if err := json.Unmarshal(data, &s); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.where, err))
			continue
		}
		if s.OutputStyle != "" {
			out.OutputStyle = s.OutputStyle
		}
		if s.StatusLine != nil {
			out.StatusLine = s.StatusLine
		}
	}
	return out, errors.Join(errs...)
}

// source is one settings file, or --settings' JSON.
type source struct {
	where, path, inline string
}

func (src Sources) files() []source {
	var out []source
	file := func(path string) {
		out = append(out, source{where: path, path: path})
	}
	if src.Home != "" {
		file(filepath.Join(src.Home, ".claude", "settings.json"))
	}
	if src.Project != "" {
		file(filepath.Join(src.Project, ".claude", "settings.json"))
		file(filepath.Join(src.Project, ".claude", "settings.local.json"))
	}
	if flag := strings.TrimSpace(src.Flag); strings.HasPrefix(flag, "{") {
		out = append(out, source{where: "--settings", inline: flag})
	} else if flag != "" {
		out = append(out, source{where: "--settings " + flag, path: flag})
	}
	if src.Managed != "" {
		file(src.Managed)
	}
	return out
}

// read returns the file's content; nil when it does not exist.
func (s source) read() ([]byte, error) {
	if s.inline != "" {
		return []byte(s.inline), nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
