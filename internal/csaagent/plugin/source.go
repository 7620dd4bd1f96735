package plugin

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Source is where a marketplace comes from, as known_marketplaces.json
// and extraKnownMarketplaces record it.
type Source struct {
	// Source is the kind: directory, file, git or github (Claude Code
	// also knows url, a hosted marketplace.json, which csa-agent does not
	// fetch).
	Source string `json:"source"`
	Path   string `json:"path,omitempty"` // directory, file
	URL    string `json:"url,omitempty"`  // git
	Repo   string `json:"repo,omitempty"` // github: owner/repo
	Ref    string `json:"ref,omitempty"`
}

var (
	scpLike     = regexp.MustCompile(`^([a-zA-Z0-9._-]+@[^:]+:.+?(?:\.git)?)(#(.+))?$`)
	githubShort = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]+$`)
)

// ParseSource reads the argument of `plugin marketplace add` as Claude
// Code does: user@host:path (git over ssh), an http(s) URL ending in .git
// (or a github.com repository URL), a path (./, ../, / or ~), or GitHub's
// owner/repo; #ref or @ref picks a branch or tag. home expands ~.
func ParseSource(arg, home string) (Source, error) {
	t := strings.TrimSpace(arg)
	if m := scpLike.FindStringSubmatch(t); m != nil {
		return Source{Source: "git", URL: m[1], Ref: m[3]}, nil
	}
	if strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") {
		u, ref, _ := strings.Cut(t, "#")
		if strings.HasSuffix(u, ".git") || strings.Contains(u, "/_git/") {
			return Source{Source: "git", URL: u, Ref: ref}, nil
		}
		if p, err := url.Parse(u); err == nil && strings.TrimPrefix(strings.ToLower(p.Hostname()), "www.") == "github.com" &&
			regexp.MustCompile(`^/[^/]+/[^/]+?(/|\.git|$)`).MatchString(p.Path) {
			return Source{Source: "git", URL: u + ".git", Ref: ref}, nil
		}
		return Source{}, inputf("%s: a hosted marketplace.json (Claude Code's url source) is not supported by csa-agent; use a git URL or a folder", t)
	}
	if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") {
		p := t
		if strings.HasPrefix(p, "~") {
			p = home + strings.TrimPrefix(p, "~")
		}
		p, err := filepath.Abs(p)
		if err != nil {
			return Source{}, err
		}
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return Source{}, inputf("path does not exist: %s", p)
		}
		if err != nil {
			return Source{}, inputf("cannot access path: %s (%v)", p, err)
		}
		if fi.IsDir() {
			return Source{Source: "directory", Path: p}, nil
		}
		if strings.HasSuffix(p, ".json") {
			return Source{Source: "file", Path: p}, nil
		}
		return Source{}, inputf("file path must point to a .json file (marketplace.json), but got: %s", p)
	}
	if strings.Contains(t, "/") && !strings.HasPrefix(t, "@") && !strings.Contains(t, ":") {
		repo, ref, _ := strings.Cut(t, "#")
		if r, at, ok := strings.Cut(repo, "@"); ok {
			repo, ref = r, at
		}
		if !githubShort.MatchString(repo) {
			return Source{}, inputf("%q is not a valid GitHub owner/repo shorthand", t)
		}
		return Source{Source: "github", Repo: repo, Ref: ref}, nil
	}
	return Source{}, inputf("invalid marketplace source %q: try owner/repo, https://...git, or ./path", t)
}

// cloneURL is the git URL of a git or github source, "" for the others.
func (s Source) cloneURL() string {
	switch s.Source {
	case "git":
		return s.URL
	case "github":
		return "https://github.com/" + s.Repo + ".git"
	}
	return ""
}

// Describe is a source as `plugin marketplace list` shows it.
func Describe(s Source) string {
	switch s.Source {
	case "directory":
		return "Directory (" + s.Path + ")"
	case "file":
		return "File (" + s.Path + ")"
	case "github":
		return "GitHub (" + s.Repo + ")"
	}
	return "Git (" + s.URL + ")"
}
