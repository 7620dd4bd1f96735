package perm

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Decision is the verdict on one call; Reason says why, for the model when
// it is denied. Ask marks a call denied only because no rule allows it: a
// person watching (an editor, an app-server client) could allow it.
type Decision struct {
	Allow  bool
	Reason string
	Ask    bool
}

// Policy decides tool calls: a mode, allow and deny rules, and the
// directories file edits may touch. Safe for concurrent use; the mode
// changes at runtime (plan mode is entered and left).
type Policy struct {
	mu    sync.RWMutex
	mode  Mode
	allow []Rule
	// granted are allow rules for the turn in progress (a skill's
	// allowed-tools), dropped by Revoke.
	granted []Rule
	deny    []Rule
	cwd     string
	roots   []string
}

// NewPolicy is a policy for an agent working in cwd; roots are the
// directories acceptEdits lets it edit (cwd when empty).
func NewPolicy(mode Mode, allow, deny []Rule, cwd string, roots []string) *Policy {
	if len(roots) == 0 {
		roots = []string{cwd}
	}
	return &Policy{mode: mode, allow: allow, deny: deny, cwd: cwd, roots: roots}
}

// Mode is the current mode.
func (p *Policy) Mode() Mode {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.mode
}

// SetMode changes the mode.
func (p *Policy) SetMode(m Mode) {
	p.mu.Lock()
	p.mode = m
	p.mu.Unlock()
}

// Grant allows what rules match until Revoke, as allow rules do: a skill's
// or command's allowed-tools, for the turn it runs in. Deny rules and plan
// mode still win.
func (p *Policy) Grant(rules []Rule) {
	p.mu.Lock()
	p.granted = append(p.granted, rules...)
	p.mu.Unlock()
}

// Revoke drops every rule Grant added.
func (p *Policy) Revoke() {
	p.mu.Lock()
	p.granted = nil
	p.mu.Unlock()
}

// Check decides a call of t with input. Deny rules win over everything;
// plan mode allows only read-only calls; bypassPermissions allows the
// rest; otherwise read-only calls are allowed, acceptEdits allows file
// edits within the roots, and anything else needs an allow rule.
func (p *Policy) Check(t tool.Tool, input json.RawMessage) Decision {
	p.mu.RLock()
	mode := p.mode
	allow := append(append([]Rule(nil), p.allow...), p.granted...)
	p.mu.RUnlock()
	name, subject := t.Name(), t.Subject(input)
	if r, ok := p.match(p.deny, name, subject, true); ok {
		return Decision{Allow: false, Reason: fmt.Sprintf("%s is denied by the permission rule %s", describe(name, subject), r)}
	}
	readOnly := t.ReadOnly(input)
	// An MCP tool's read-only claim is its server's (readOnlyHint): it
	// lets the tool run in plan mode, but like every MCP tool it needs an
	// allow rule, as in Claude Code.
	claimed := strings.HasPrefix(name, "mcp__")
	switch {
	case mode == Plan && !readOnly:
		return Decision{Allow: false, Reason: fmt.Sprintf("plan mode is read-only: %s would change things. Keep exploring with read-only tools, then present your plan with ExitPlanMode; changes can be made after it is approved.", describe(name, subject))}
	case mode == Plan && !claimed:
		return Decision{Allow: true, Reason: "read-only call in plan mode"}
	case mode == BypassPermissions:
		return Decision{Allow: true, Reason: "bypassPermissions mode"}
	case readOnly && !claimed:
		return Decision{Allow: true, Reason: "read-only call"}
	case mode == AcceptEdits && editTools[name] && p.inRoots(subject):
		return Decision{Allow: true, Reason: "file edit within the working directories (acceptEdits mode)"}
	}
	if r, ok := p.match(allow, name, subject, false); ok {
		return Decision{Allow: true, Reason: "allowed by the permission rule " + r}
	}
	return Decision{Reason: fmt.Sprintf("%s needs permission and this agent runs unattended, so nobody can grant it. It is not allowed by any rule; the rule %s would allow it (or a broader permission mode). Do without it, or stop and say what you need.", describe(name, subject), p.suggest(name, subject)), Ask: true}
}

// match finds a rule of rules matching the call. A deny rule matches when
// any form of the call matches; an allow rule only when every form does
// (a path and its symlink-resolved target; each command of a compound
// Bash command, each allowed by some rule).
func (p *Policy) match(rules []Rule, name, subject string, deny bool) (string, bool) {
	if name == "Bash" {
		return p.matchBash(rules, subject, deny)
	}
	for _, r := range rules {
		if !r.appliesTo(name) {
			continue
		}
		if r.Spec == "" {
			return r.String(), true
		}
		if p.matchSpec(r, name, subject, deny) {
			return r.String(), true
		}
	}
	return "", false
}

func (p *Policy) matchSpec(r Rule, name, subject string, deny bool) bool {
	switch {
	case isPathTool(r.Tool) && isPathTool(name):
		cands := pathCandidates(subject, p.cwd)
		n := 0
		for _, c := range cands {
			if matchPath(r.Spec, c, p.cwd) {
				n++
			}
		}
		return deny && n > 0 || n == len(cands)
	case r.Tool == "WebFetch":
		return matchDomain(r.Spec, subject)
	}
	return r.Spec == subject
}

// matchBash splits a compound command: a deny rule matching any part (or
// the whole) denies it; allowing it needs every part allowed, and no
// redirection or substitution that could write or run something unseen.
func (p *Policy) matchBash(rules []Rule, cmd string, deny bool) (string, bool) {
	parts := splitShell(cmd)
	if deny {
		for _, part := range append([]string{cmd}, splitDeep(cmd)...) {
			for _, r := range rules {
				if r.Tool == "Bash" && (r.Spec == "" || matchBash(r.Spec, part, true)) {
					return r.String(), true
				}
			}
		}
		return "", false
	}
	for _, r := range rules {
		if r.Tool == "Bash" && r.Spec == "" {
			return r.String(), true
		}
	}
	if opaque(cmd) {
		return "", false
	}
	parts = splitShell(stripSafeRedirects(cmd))
	if len(parts) > 0 {
		var used []string
		for _, part := range parts {
			found := ""
			for _, r := range rules {
				if r.Tool == "Bash" && r.Spec != "" && matchBash(r.Spec, part, false) {
					found = r.String()
					break
				}
			}
			if found == "" {
				return "", false
			}
			used = append(used, found)
		}
		return strings.Join(used, ", "), true
	}
	return "", false
}

// opaque reports what an allow rule cannot vouch for: substitutions,
// redirections (other than to /dev/null or between streams) and
// multi-line scripts.
func opaque(cmd string) bool {
	c := stripSafeRedirects(cmd)
	return strings.ContainsAny(c, "`<>\n\r") || strings.Contains(c, "$(") || strings.Contains(c, "<(")
}

// stripSafeRedirects blanks the redirections that write nowhere: between
// streams and to /dev/null.
func stripSafeRedirects(cmd string) string {
	for _, ok := range []string{"&>/dev/null", "2>/dev/null", ">/dev/null", "2>&1", "1>&2", ">&2"} {
		cmd = strings.ReplaceAll(cmd, ok, " ")
	}
	return cmd
}

// splitShell splits at ;, &, &&, || and | (quotes are not parsed: a
// quoted operator splits too, which only makes allowing harder).
func splitShell(cmd string) []string {
	f := func(r rune) bool { return r == ';' || r == '&' || r == '|' }
	var out []string
	for _, s := range strings.FieldsFunc(cmd, f) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// splitDeep also splits out substitutions and subshells ($(...), `...`,
// (...)) and lines, so a deny rule sees every command inside.
func splitDeep(cmd string) []string {
	f := func(r rune) bool { return strings.ContainsRune(";&|()`\n\r{}", r) }
	var out []string
	for _, s := range strings.FieldsFunc(cmd, f) {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "$"))
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (p *Policy) inRoots(subject string) bool {
	if subject == "" {
		return false
	}
	cands := pathCandidates(subject, p.cwd)
	for _, c := range cands {
		in := false
		for _, r := range p.roots {
			rr, err := tool.RealPath(r)
			if err != nil {
				rr = filepath.Clean(r)
			}
			if tool.Within(filepath.Clean(r), c) || tool.Within(rr, c) {
				in = true
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// suggest is a rule that would allow the call.
func (p *Policy) suggest(name, subject string) string {
	switch {
	case subject == "":
		return name
	case name == "Bash":
		if opaque(subject) {
			return "Bash (every command: redirections and substitutions are not matched by narrower rules)"
		}
		// A rule for each part no allow rule covers.
		var out []string
		for _, part := range splitShell(stripSafeRedirects(subject)) {
			if _, ok := p.matchBash(p.allow, part, false); ok {
				continue
			}
			words := strings.Fields(part)
			if len(words) > 2 {
				out = append(out, fmt.Sprintf("Bash(%s:*)", strings.Join(words[:2], " ")))
			} else {
				out = append(out, "Bash("+strings.Join(words, " ")+")")
			}
		}
		return strings.Join(out, " and ")
	case editTools[name]:
		abs := subject
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(p.cwd, abs)
		}
		if r, err := filepath.Rel(p.cwd, abs); err == nil && !strings.HasPrefix(r, "..") {
			return "Edit(./" + r + ")"
		}
		return "Edit(" + filepath.Clean(abs) + ")"
	case name == "WebFetch":
		if u, err := url.Parse(subject); err == nil && u.Hostname() != "" {
			return "WebFetch(domain:" + u.Hostname() + ")"
		}
	}
	return name
}

// describe names a call for a reason.
func describe(name, subject string) string {
	if subject == "" {
		return name
	}
	if len(subject) > 200 {
		subject = subject[:200] + "..."
	}
	return fmt.Sprintf("%s(%s)", name, subject)
}
