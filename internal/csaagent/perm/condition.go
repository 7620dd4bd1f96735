package perm

// MatchesCall reports whether the rule names a call of the tool name on
// subject (the tool's Subject: a command, a path, a URL), as the "if"
// condition of a Claude Code hook does: the same tool, and a specifier
// matching as a permission rule's does. A compound command matches when
// any of its commands does, with a prefix ending at a word boundary
// (Bash(git commit:*) matches "git add . && git commit -m x", not
// "git commitx"); a path pattern matches the path or its resolved target.
func (r Rule) MatchesCall(name, subject, cwd string) bool {
	if r.Tool != name {
		return false
	}
	if r.Spec == "" {
		return true
	}
	switch {
	case name == "Bash":
		for _, part := range append([]string{subject}, splitDeep(subject)...) {
			if matchBash(r.Spec, part, false) {
				return true
			}
		}
		return false
	case isPathTool(name):
		for _, c := range pathCandidates(subject, cwd) {
			if matchPath(r.Spec, c, cwd) {
				return true
			}
		}
		return false
	case name == "WebFetch":
		return matchDomain(r.Spec, subject)
	}
	return r.Spec == subject
}
