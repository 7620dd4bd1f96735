package perm

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Rule is one permission rule: a tool name, optionally with a specifier
// saying which calls of it ("Bash(git diff:*)", "Edit(src/**)",
// "WebFetch(domain:example.com)").
type Rule struct {
	Tool string // as written: Bash, Edit, Read, WebFetch, ...
	Spec string // inside the parentheses; "" matches every call
}

func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

// toolName is a rule's tool; an MCP server's tools may end in a * (Claude
// Code's mcp__server__*).
var toolName = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*|mcp__[A-Za-z0-9_-]+__\*)$`)

// ParseRule reads one rule.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	name, spec, hasSpec := strings.Cut(s, "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return Rule{}, fmt.Errorf("rule %q: missing closing parenthesis", s)
		}
		spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
		if spec == "" {
			return Rule{}, fmt.Errorf("rule %q: empty parentheses (write just %s to match every call)", s, name)
		}
	}
	if !toolName.MatchString(name) {
		return Rule{}, fmt.Errorf("rule %q: %q is not a tool name (rules look like Bash, Bash(git diff:*), Edit(src/**), WebFetch(domain:example.com))", s, name)
	}
	r := Rule{Tool: name, Spec: spec}
	if spec == "" {
		return r, nil
	}
	switch {
	case name == "Bash":
		if i := strings.Index(spec, ":*"); i >= 0 && i != len(spec)-2 {
			return Rule{}, fmt.Errorf("rule %q: :* may only end a Bash rule (a prefix match)", s)
		}
		if spec == ":*" {
			return Rule{}, fmt.Errorf("rule %q: empty prefix (write just Bash to match every command)", s)
		}
	case name == "WebFetch":
		host, ok := strings.CutPrefix(spec, "domain:")
		if !ok || host == "" || strings.ContainsAny(host, "/:* ") {
			return Rule{}, fmt.Errorf("rule %q: WebFetch rules name a host as domain:example.com", s)
		}
	case isPathTool(name):
		if !doublestar.ValidatePattern(strings.TrimPrefix(spec, "./")) {
			return Rule{}, fmt.Errorf("rule %q: invalid path pattern %q", s, spec)
		}
	}
	return r, nil
}

// ParseRules reads a list of rules, reporting every bad one.
func ParseRules(list []string) ([]Rule, error) {
	var out []Rule
	var errs []error
	for _, s := range list {
		r, err := ParseRule(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// Tool families: an Edit or Write rule covers every tool that changes a
// file (each can do what the others do); a Read rule covers the tools that
// read files or list them.
var (
	editTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}
	readTools = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "NotebookRead": true}
)

func isPathTool(name string) bool { return editTools[name] || readTools[name] }

// appliesTo reports whether the rule is about the named tool.
func (r Rule) appliesTo(name string) bool {
	switch {
	case r.Tool == name:
		return true
	case editTools[r.Tool]:
		return editTools[name]
	case r.Tool == "Read":
		return readTools[name]
	}
	return mcpServerRule(r.Tool, name)
}

// mcpServerRule reports whether rule, mcp__SERVER or mcp__SERVER__*, names
// every tool of the server of name (mcp__SERVER__TOOL), as in Claude Code.
func mcpServerRule(rule, name string) bool {
	server, ok := strings.CutPrefix(rule, "mcp__")
	if !ok {
		return false
	}
	server = strings.TrimSuffix(server, "__*")
	if server == "" || strings.Contains(server, "__") {
		return false
	}
	return strings.HasPrefix(name, "mcp__"+server+"__")
}

// matchPath matches a path pattern gitignore-style: relative patterns are
// taken from cwd ("./docs/*.md", "src/**"), "/abs" and "//abs" are
// absolute, "~/" is home, a pattern without a slash matches a name at any
// depth ("*.env"), and a pattern matching a directory matches everything
// below it.
func matchPath(spec, path, cwd string) bool {
	pat := spec
	switch {
	case strings.HasPrefix(pat, "//"):
		pat = pat[1:]
	case strings.HasPrefix(pat, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			pat = filepath.ToSlash(home) + pat[1:]
		}
	case strings.HasPrefix(pat, "/"):
	case !strings.Contains(strings.TrimSuffix(pat, "/"), "/"):
		pat = "/**/" + pat
	default:
		pat = strings.TrimSuffix(filepath.ToSlash(cwd), "/") + "/" + strings.TrimPrefix(pat, "./")
	}
	pat = strings.TrimSuffix(pat, "/")
	p := filepath.ToSlash(path)
	for {
		if ok, _ := doublestar.Match(pat, p); ok {
			return true
		}
		parent := filepath.ToSlash(filepath.Dir(p))
		if parent == p {
			return false
		}
		p = parent
	}
}

// matchBash matches one simple command: "cmd:*" is a prefix (for an allow
// rule the prefix must end at a word boundary, so Bash(ls:*) does not allow
// lsblk; a deny rule matches any prefix), anything else the exact command.
func matchBash(spec, cmd string, deny bool) bool {
	cmd = strings.Join(strings.Fields(cmd), " ")
	prefix, isPrefix := strings.CutSuffix(spec, ":*")
	if !isPrefix {
		return cmd == strings.Join(strings.Fields(spec), " ")
	}
	prefix = strings.Join(strings.Fields(prefix), " ")
	if deny {
		return strings.HasPrefix(cmd, prefix)
	}
	return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
}

// matchDomain matches a URL whose host is the rule's domain or below it.
func matchDomain(spec, rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	want := strings.ToLower(strings.TrimPrefix(spec, "domain:"))
	host := strings.ToLower(u.Hostname())
	return host == want || strings.HasSuffix(host, "."+want)
}

// pathCandidates are the forms of a file subject rules are matched
// against: as written (made absolute) and with symlinks resolved.
func pathCandidates(subject, cwd string) []string {
	if subject == "" {
		subject = cwd
	}
	if !filepath.IsAbs(subject) {
		subject = filepath.Join(cwd, subject)
	}
	subject = filepath.Clean(subject)
	out := []string{subject}
	if real, err := tool.RealPath(subject); err == nil && real != subject {
		out = append(out, real)
	}
	return out
}

// SplitRules splits rule lists at commas and spaces outside parentheses, as
// Claude Code does: "Bash(git diff:*),Edit" and "Bash(echo a, b) Read" are
// two rules each.
func SplitRules(values []string) []string {
	var out []string
	for _, v := range values {
		depth, start := 0, 0
		for i, r := range v {
			switch {
			case r == '(':
				depth++
			case r == ')' && depth > 0:
				depth--
			case (r == ',' || r == ' ') && depth == 0:
				if w := strings.TrimSpace(v[start:i]); w != "" {
					out = append(out, w)
				}
				start = i + 1
			}
		}
		if w := strings.TrimSpace(v[start:]); w != "" {
			out = append(out, w)
		}
	}
	return out
}
