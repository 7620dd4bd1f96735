package workspace

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
)

// DefaultBranch names a run's branch unless defaults.worktree_branch,
// tools.NAME.worktree_branch or csa run --branch say otherwise.
const DefaultBranch = "csa/{id}"

// BranchVars are what a branch template's placeholders stand for.
type BranchVars struct {
	ID   string    // the session's id
	Tool string    // the tool it runs
	At   time.Time // when it was made
}

// placeholders of a branch template, in the order the help lists them,
// with what each stands for.
var placeholders = []struct {
	name  string
	value func(v BranchVars, fullID bool) string
}{
	// The id's first ten characters, as csa ps shows it (whole when the
	// name is taken).
	{"{id}", func(v BranchVars, full bool) string {
		if full {
			return v.ID
		}
		return v.ID[:min(len(v.ID), 10)]
	}},
	{"{tool}", func(v BranchVars, _ bool) string { return v.Tool }},
	{"{date}", func(v BranchVars, _ bool) string { return v.At.Local().Format("20060102") }},
}

// Placeholders lists the placeholders a branch template may hold.
func Placeholders() string {
	names := make([]string, len(placeholders))
	for i, p := range placeholders {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

var placeholder = regexp.MustCompile(`\{[^{}]*\}`)

// CheckTemplate refuses a branch template that names no branch or holds
// a placeholder that is none of Placeholders. Whether git takes the name
// it makes is CheckBranch's business, when a run starts.
func CheckTemplate(t string) error {
	if strings.TrimSpace(t) == "" {
		return errors.New("empty: a branch needs a name")
	}
	for _, p := range placeholder.FindAllString(t, -1) {
		if _, ok := expandOne(p, BranchVars{}, false); !ok {
			return fmt.Errorf("unknown placeholder %s in %q (known: %s)", p, t, Placeholders())
		}
	}
	return nil
}

// expandOne is what placeholder p stands for, if it is one.
func expandOne(p string, v BranchVars, fullID bool) (string, bool) {
	for _, ph := range placeholders {
		if ph.name == p {
			return ph.value(v, fullID), true
		}
	}
	return "", false
}

func expand(t string, v BranchVars, fullID bool) string {
	return placeholder.ReplaceAllStringFunc(t, func(p string) string {
		if s, ok := expandOne(p, v, fullID); ok {
			return s
		}
		return p
	})
}

// Naming is how a run's branch is named.
type Naming struct {
	// Template has placeholders (Placeholders); "" is DefaultBranch.
	Template string
	// Exact is the name csa run --branch gives, over Template.
	Exact string
}

// Branches are the names a session's branch may take, first choice
// first: Exact, or the template expanded. Should that be taken, a
// template's {id} becomes the whole id (runs started in the same
// millisecond); an exact name or a template without {id} gets "-" and
// the whole id appended (also what a later attempt of a tier gets when
// its first attempt took the exact name).
func (n Naming) Branches(v BranchVars) []string {
	name, alt := n.Exact, ""
	if name == "" {
		t := n.Template
		if t == "" {
			t = DefaultBranch
		}
		name = expand(t, v, false)
		if strings.Contains(t, "{id}") {
			alt = expand(t, v, true)
		}
	}
	if alt == "" {
		alt = name + "-" + v.ID
	}
	if alt == name {
		return []string{name}
	}
	return []string{name, alt}
}

// CheckBranch refuses, before a run's session is made, the branch n
// gives when git would not take the name (gittree.ErrBadBranch), and an
// exact name that the repository at dir has already
// (gittree.ErrBranchExists): a template's name that is taken gives way
// to its next choice. v.ID "" stands for an id not made yet.
func CheckBranch(ctx context.Context, g *gittree.Git, dir string, n Naming, v BranchVars) error {
	if v.ID == "" {
		v.ID = session.NewID(v.At)
	}
	name := n.Branches(v)[0]
	if err := g.CheckBranchName(ctx, dir, name); err != nil {
		return err
	}
	if n.Exact != "" && g.HasBranch(ctx, dir, name) {
		return fmt.Errorf("%w: %s", gittree.ErrBranchExists, name)
	}
	return nil
}
