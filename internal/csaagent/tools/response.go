package tools

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// The results of the file and shell tools in Claude Code's shapes (its
// tools' output schemas, as version 2.1.197 reports them to PostToolUse
// hooks as tool_response), for hooks and transcript readers written for
// Claude Code.

// bashResponse is Bash's: the output (stdout and stderr together, as the
// command wrote them, without the final newline) and whether it was
// interrupted.
type bashResponse struct {
	Stdout           string `json:"stdout"`
	Stderr           string `json:"stderr"`
	Interrupted      bool   `json:"interrupted"`
	IsImage          bool   `json:"isImage"`
	NoOutputExpected bool   `json:"noOutputExpected"`
}

// writeResponse is Write's; OriginalFile is null for a new file.
type writeResponse struct {
	Type            string  `json:"type"` // create or update
	FilePath        string  `json:"filePath"`
	Content         string  `json:"content"`
	StructuredPatch []hunk  `json:"structuredPatch"`
	OriginalFile    *string `json:"originalFile"`
	UserModified    bool    `json:"userModified"`
}

// editResponse is Edit's (and MultiEdit's, without the strings).
type editResponse struct {
	FilePath        string `json:"filePath"`
	OldString       string `json:"oldString"`
	NewString       string `json:"newString"`
	OriginalFile    string `json:"originalFile"`
	StructuredPatch []hunk `json:"structuredPatch"`
	UserModified    bool   `json:"userModified"`
	ReplaceAll      bool   `json:"replaceAll"`
}

// readResponse is Read's for a text file: the lines shown, raw.
type readResponse struct {
	Type string   `json:"type"` // text
	File readFile `json:"file"`
}

type readFile struct {
	FilePath   string `json:"filePath"`
	Content    string `json:"content"`
	NumLines   int    `json:"numLines"`
	StartLine  int    `json:"startLine"`
	TotalLines int    `json:"totalLines"`
}

// globResponse is Glob's (from Claude Code's code: Glob is not among
// 2.1.197's tools where its own search tools are built in): the names
// relative to the working directory unless outside it.
type globResponse struct {
	Filenames       []string `json:"filenames"`
	DurationMs      int64    `json:"durationMs"`
	NumFiles        int      `json:"numFiles"`
	Truncated       bool     `json:"truncated"`
	TotalMatches    int      `json:"totalMatches"`
	CountIsComplete bool     `json:"countIsComplete"`
}

// grepResponse is Grep's (from Claude Code's code, as Glob's): the
// files for files_with_matches, else the output lines and their count or
// the matches counted.
type grepResponse struct {
	Mode       string   `json:"mode"`
	NumFiles   int      `json:"numFiles"`
	Filenames  []string `json:"filenames"`
	Content    *string  `json:"content,omitempty"`
	NumLines   *int     `json:"numLines,omitempty"`
	NumMatches *int     `json:"numMatches,omitempty"`
}

// response is the search's result in Claude Code's shape; result must
// have run (it sorts the files).
func (g *grepper) response(cwd string) grepResponse {
	r := grepResponse{Mode: g.mode, Filenames: []string{}}
	switch g.mode {
	case "files_with_matches":
		limit := grepMaxFiles // as result lists them
		if g.in.HeadLimit > 0 && g.in.HeadLimit < limit {
			limit = g.in.HeadLimit
		}
		for _, f := range g.files[:min(limit, len(g.files))] {
			r.Filenames = append(r.Filenames, relToCwd(cwd, f.path))
		}
		r.NumFiles = len(r.Filenames)
		return r
	case "count":
		content, n := strings.Join(g.out, "\n"), 0
		for _, l := range g.out {
			if i := strings.LastIndexByte(l, ':'); i > 0 {
				if c, err := strconv.Atoi(l[i+1:]); err == nil {
					n += c
					r.NumFiles++
				}
			}
		}
		r.Content, r.NumMatches = &content, &n
		return r
	}
	content, lines := strings.Join(g.out, "\n"), len(g.out)
	r.Content, r.NumLines = &content, &lines
	return r
}

// relToCwd is path relative to cwd, or as it is when outside it.
func relToCwd(cwd, path string) string {
	rel, err := filepath.Rel(cwd, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return rel
}

// hunk is one hunk of a unified diff, as jsdiff's structuredPatch gives
// it: lines prefixed with " ", "-" or "+".
type hunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
}

// patchContext is the unchanged lines around each change, as in Claude
// Code's patches.
const patchContext = 3

// structuredPatch is the line diff of before and after in hunks.
func structuredPatch(before, after string) []hunk {
	a, b := patchLines(before), patchLines(after)
	m := difflib.NewMatcher(a, b)
	out := []hunk{}
	for _, group := range m.GetGroupedOpCodes(patchContext) {
		if len(group) == 1 && group[0].Tag == 'e' {
			continue // no change at all
		}
		first, last := group[0], group[len(group)-1]
		h := hunk{OldStart: first.I1 + 1, OldLines: last.I2 - first.I1, NewStart: first.J1 + 1, NewLines: last.J2 - first.J1}
		for _, op := range group {
			switch op.Tag {
			case 'e':
				for _, l := range a[op.I1:op.I2] {
					h.Lines = append(h.Lines, " "+l)
				}
			default:
				for _, l := range a[op.I1:op.I2] {
					h.Lines = append(h.Lines, "-"+l)
				}
				for _, l := range b[op.J1:op.J2] {
					h.Lines = append(h.Lines, "+"+l)
				}
			}
		}
		out = append(out, h)
	}
	return out
}

// patchLines splits text into lines, a final newline ending the last
// line rather than starting an empty one.
func patchLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
