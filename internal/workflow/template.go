package workflow

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/csa-dev/csa/internal/shellquote"
)

// Step result fields a reference may name: ${steps.N.FIELD}.
var stepFields = []string{"output", "verdict", "exit_code", "status"}

// Ref is a variable reference: a name (a variable or a FOR's variable), or
// a field of a step's result, of one FOR iteration when Index is given.
type Ref struct {
	Name  string
	Step  int
	Index []int
	Field string
}

func (r Ref) String() string {
	if r.Name != "" {
		return r.Name
	}
	var b strings.Builder
	fmt.Fprintf(&b, "steps.%d", r.Step)
	for _, i := range r.Index {
		fmt.Fprintf(&b, "[%d]", i)
	}
	return b.String() + "." + r.Field
}

var (
	nameRe    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	stepRefRe = regexp.MustCompile(`^steps\.([0-9]+)((?:\[[0-9]+\])*)\.([a-z_]+)$`)
	indexRe   = regexp.MustCompile(`\[([0-9]+)\]`)
)

// ParseRef reads the text of a reference (what stands between ${ and }).
func ParseRef(s string) (Ref, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "steps.") {
		if !nameRe.MatchString(s) {
			return Ref{}, fmt.Errorf("${%s}: not a variable name", s)
		}
		return Ref{Name: s}, nil
	}
	if m := stepRefRe.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		r := Ref{Step: n, Field: m[3]}
		for _, im := range indexRe.FindAllStringSubmatch(m[2], -1) {
			i, _ := strconv.Atoi(im[1])
			r.Index = append(r.Index, i)
		}
		if !contains(stepFields, r.Field) {
			return Ref{}, fmt.Errorf("${%s}: a step has no field %q (it has %s)", s, r.Field, strings.Join(stepFields, ", "))
		}
		return r, nil
	}
	return Ref{}, fmt.Errorf("${%s}: want ${steps.N.FIELD} or ${steps.N[i].FIELD}", s)
}

// segment is literal text or a reference.
type segment struct {
	lit string
	ref *Ref
}

// parseTemplate splits text into literals and ${...} references; $${ is a
// literal ${ (for shell scripts that use their own ${VAR}).
func parseTemplate(s string) ([]segment, error) {
	// Literal segments are slices of s (a long prompt is not copied);
	// $${ is its own segment.
	var segs []segment
	lit := 0 // where the literal text not yet in segs begins
	flush := func(end int) {
		if end > lit {
			segs = append(segs, segment{lit: s[lit:end]})
		}
	}
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			flush(i)
			segs = append(segs, segment{lit: "${"})
			i += 3
			lit = i
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ${ (write $${ for a literal one)")
			}
			r, err := ParseRef(s[i+2 : i+end])
			if err != nil {
				return nil, err
			}
			flush(i)
			segs = append(segs, segment{ref: &r})
			i += end + 1
			lit = i
		default:
			// Up to the next '$' (or the end) is literal.
			next := strings.IndexByte(s[i+1:], '$')
			if next < 0 {
				next = len(s) - i - 1
			}
			i += 1 + next
		}
	}
	flush(len(s))
	return segs, nil
}

// Lookup gives a reference's value.
type Lookup func(Ref) (string, error)

// Expand substitutes every reference in text. Values are inserted as they
// are, or shell-quoted when shell is set: a step's output can never become
// shell syntax.
func Expand(text string, look Lookup, shell bool) (string, error) {
	segs, err := parseTemplate(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, sg := range segs {
		if sg.ref == nil {
			b.WriteString(sg.lit)
			continue
		}
		v, err := look(*sg.ref)
		if err != nil {
			return "", err
		}
		if shell {
			v = shellquote.Quote(v)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// refsOf lists the references in text.
func refsOf(text string) ([]Ref, error) {
	segs, err := parseTemplate(text)
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, sg := range segs {
		if sg.ref != nil {
			refs = append(refs, *sg.ref)
		}
	}
	return refs, nil
}

// SplitList turns a FOR's expanded list into items: separated by newlines
// when it has any, else by commas; each trimmed, empty ones dropped.
func SplitList(s string) []string {
	sep := ","
	if strings.Contains(strings.TrimSpace(s), "\n") {
		sep = "\n"
	}
	var items []string
	for _, it := range strings.Split(s, sep) {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, it)
		}
	}
	return items
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
