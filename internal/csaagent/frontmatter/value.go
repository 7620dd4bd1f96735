package frontmatter

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Value is a front matter value as Claude Code's JavaScript sees it: a
// string, a number or a boolean (each with its text), null, a list or a
// mapping. The zero Value is a key not given.
type Value struct {
	kind  kind
	s     string
	items []Value
	node  *yaml.Node
}

type kind int

const (
	absent kind = iota
	null
	text
	number
	boolean
	list
	mapping
)

func valueOf(n *yaml.Node) Value {
	n = deref(n)
	v := Value{node: n}
	switch n.Kind {
	case yaml.SequenceNode:
		v.kind = list
		for _, c := range n.Content {
			v.items = append(v.items, valueOf(c))
		}
	case yaml.MappingNode:
		v.kind = mapping
	case yaml.ScalarNode:
		v.kind, v.s = scalar(n)
	default:
		v.kind = null
	}
	return v
}

// scalar is a scalar's kind and its text as JavaScript's String() writes
// it. A plain scalar is resolved by YAML 1.2's core schema as Bun reads
// it (yaml.v3 reads 010 as octal and 0b1 as a number, YAML 1.1's ways):
// 0x1F is 31, 010 is 10, 1.0 is 1, yes is a string.
func scalar(n *yaml.Node) (kind, string) {
	tag := n.ShortTag()
	if n.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		tag = resolvePlain(n.Value)
	}
	switch tag {
	case "!!null":
		return null, ""
	case "!!bool":
		return boolean, strings.ToLower(n.Value)
	case "!!int", "!!float":
		if f, ok := parseNumber(n.Value); ok {
			return number, jsNumber(f)
		}
	}
	return text, n.Value
}

var (
	// coreFirst holds the first characters of the core schema's values
	// that are not strings (but the empty null).
	coreFirst = "~nNtTfF+-.0123456789"
	coreNull  = regexp.MustCompile(`^(~|null|Null|NULL|)$`)
	coreBool  = regexp.MustCompile(`^(true|True|TRUE|false|False|FALSE)$`)
	coreInt   = regexp.MustCompile(`^[-+]?([0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$`)
	coreFloat = regexp.MustCompile(`^([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
)

func resolvePlain(s string) string {
	if s != "" && !strings.ContainsRune(coreFirst, rune(s[0])) {
		return "!!str" // a description is not run through the patterns
	}
	switch {
	case coreNull.MatchString(s):
		return "!!null"
	case coreBool.MatchString(s):
		return "!!bool"
	case coreInt.MatchString(s):
		return "!!int"
	case coreFloat.MatchString(s):
		return "!!float"
	}
	return "!!str"
}

// parseNumber reads a core schema number as JavaScript holds it (a
// float64).
func parseNumber(s string) (float64, bool) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimLeft(s, "+-")
	var f float64
	switch {
	case strings.HasPrefix(body, "0x"), strings.HasPrefix(body, "0o"):
		base := 16
		if body[1] == 'o' {
			base = 8
		}
		u, err := strconv.ParseUint(body[2:], base, 64)
		if err != nil {
			return 0, false
		}
		f = float64(u)
	case strings.EqualFold(body, ".inf"):
		f = math.Inf(1)
	case strings.EqualFold(body, ".nan"):
		return math.NaN(), true
	default:
		var err error
		if f, err = strconv.ParseFloat(body, 64); err != nil {
			return 0, false
		}
	}
	if neg {
		f = -f
	}
	return f, true
}

// jsNumber writes f as JavaScript's String() does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	case math.Abs(f) >= 1e21 || math.Abs(f) < 1e-6:
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		e, _ := strconv.Atoi(exp)
		return fmt.Sprintf("%se%+d", mant, e)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// Scalar is the value's text: a string's, a number's or a boolean's; ""
// for null or a key not given; a list or a mapping is an error naming
// key.
func (v Value) Scalar(key string) (string, error) {
	switch v.kind {
	case list:
		return "", fmt.Errorf("%s must be a single value, not a list", key)
	case mapping:
		return "", fmt.Errorf("%s must be a single value, not a mapping", key)
	}
	return v.s, nil
}

// IsText reports whether the value is a string (a number or a boolean is
// not): what Claude Code wants of an agent's name and description.
func (v Value) IsText() bool { return v.kind == text }

// Bool reads a flag as Claude Code does: true (or the string "true") is
// true, a key not given is def, anything else (yes, "false", null) false.
func (v Value) Bool(def bool) bool {
	if v.kind == absent {
		return def
	}
	return (v.kind == boolean || v.kind == text) && v.s == "true"
}

// List splits a comma-separated string ("Read, Grep") or returns the
// list's strings (other items are dropped, as Claude Code drops them),
// without empty items; nil when there are none.
func (v Value) List() []string {
	var items []string
	switch v.kind {
	case text:
		items = strings.Split(v.s, ",")
	case list:
		for _, it := range v.items {
			if it.kind == text {
				items = append(items, it.s)
			}
		}
	}
	var out []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// IsList reports whether the value was written as a list.
func (v Value) IsList() bool { return v.kind == list }

// IsMapping reports whether the value is a mapping (a skill's hooks:).
func (v Value) IsMapping() bool { return v.kind == mapping }

// Decode decodes the value into out as YAML (a mapping into a struct or a
// map); a key not given leaves out as it is.
func (v Value) Decode(out any) error {
	if v.node == nil {
		return nil
	}
	return v.node.Decode(out)
}
