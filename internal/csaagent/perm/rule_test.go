package perm

import (
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%s) = %v, %v", m, got, err)
		}
	}
	if got, _ := ParseMode(""); got != Default {
		t.Errorf("ParseMode(\"\") = %v", got)
	}
	_, err := ParseMode("yolo")
	if err == nil || !strings.Contains(err.Error(), "default, acceptEdits, plan, bypassPermissions") {
		t.Errorf("ParseMode(yolo): %v", err)
	}
}

func TestParseRule(t *testing.T) {
	tests := []struct {
		in   string
		want Rule
		err  string
	}{
		{"Bash", Rule{Tool: "Bash"}, ""},
		{" Bash(git diff:*) ", Rule{"Bash", "git diff:*"}, ""},
		{"Bash(npm test)", Rule{"Bash", "npm test"}, ""},
		{"Edit(src/**)", Rule{"Edit", "src/**"}, ""},
		{"Read(./docs/*.md)", Rule{"Read", "./docs/*.md"}, ""},
		{"Write(/abs/**)", Rule{"Write", "/abs/**"}, ""},
		{"WebFetch(domain:example.com)", Rule{"WebFetch", "domain:example.com"}, ""},
		{"mcp__github__get_issue", Rule{Tool: "mcp__github__get_issue"}, ""},
		{"Bash(echo (x))", Rule{"Bash", "echo (x)"}, ""},
		{"Bash(git:*", Rule{}, "missing closing parenthesis"},
		{"Bash()", Rule{}, "empty parentheses"},
		{"Bash(:*)", Rule{}, "empty prefix"},
		{"Bash(git:* status)", Rule{}, "only end"},
		{"WebFetch(example.com)", Rule{}, "domain:example.com"},
		{"WebFetch(domain:https://x.com/)", Rule{}, "domain:example.com"},
		{"Edit(src/[)", Rule{}, "invalid path pattern"},
		{"", Rule{}, "not a tool name"},
		{"2Bash", Rule{}, "not a tool name"},
	}
	for _, tt := range tests {
		got, err := ParseRule(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseRule(%q) = %v, %v; want error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRule(%q) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
		if err == nil && got.String() != strings.TrimSpace(tt.in) {
			t.Errorf("String() = %q", got.String())
		}
	}
	rules, err := ParseRules([]string{"Bash", "Bash(", "Edit(x)", "Nope("})
	if len(rules) != 2 || err == nil || !strings.Contains(err.Error(), `"Bash("`) || !strings.Contains(err.Error(), `"Nope("`) {
		t.Errorf("ParseRules = %v, %v", rules, err)
	}
}

func TestMatchPath(t *testing.T) {
	const cwd = "/work/proj"
	tests := []struct {
		spec, path string
		want       bool
	}{
		{"src/**", "/work/proj/src/a/b.go", true},
		{"src/**", "/work/proj/srcx/b.go", false},
		{"src/**", "/work/other/src/b.go", false},
		{"./docs/*.md", "/work/proj/docs/a.md", true},
		{"./docs/*.md", "/work/proj/docs/sub/a.md", false},
		{"docs/", "/work/proj/docs/sub/a.md", true}, // a directory covers its contents
		{"src", "/work/proj/src/x.go", true},        // no slash: a name at any depth
		{"*.env", "/work/proj/a/b/.env", true},
		{"*.env", "/elsewhere/prod.env", true},
		{"*.env", "/work/proj/env.txt", false},
		{"/abs/**", "/abs/x/y", true},
		{"/abs/**", "/work/proj/abs/x", false},
		{"//etc/*", "/etc/passwd", true},
		{"**/*.{ts,tsx}", "/work/proj/a/b.tsx", true},
	}
	for _, tt := range tests {
		if got := matchPath(tt.spec, tt.path, cwd); got != tt.want {
			t.Errorf("matchPath(%q, %q) = %v", tt.spec, tt.path, got)
		}
	}
}

func TestMatchBashAndDomain(t *testing.T) {
	tests := []struct {
		spec, cmd string
		deny      bool
		want      bool
	}{
		{"git diff:*", "git diff", false, true},
		{"git diff:*", "git  diff HEAD~1", false, true},
		{"git diff:*", "git diff-tree x", false, false}, // allow stops at a word
		{"git diff:*", "git diff-tree x", true, true},   // deny matches any prefix
		{"npm test", "npm test", false, true},
		{"npm test", "npm test --watch", false, false},
		{"ls:*", "lsblk", false, false},
	}
	for _, tt := range tests {
		if got := matchBash(tt.spec, tt.cmd, tt.deny); got != tt.want {
			t.Errorf("matchBash(%q, %q, deny=%v) = %v", tt.spec, tt.cmd, tt.deny, got)
		}
	}
	domains := map[string]bool{
		"https://example.com/x": true, "http://docs.example.com": true, "https://EXAMPLE.com:8443/": true,
		"https://notexample.com": false, "https://example.com.evil.org": false, "::": false,
	}
	for u, want := range domains {
		if got := matchDomain("domain:example.com", u); got != want {
			t.Errorf("matchDomain(%q) = %v", u, got)
		}
	}
}
