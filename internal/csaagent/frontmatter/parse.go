package frontmatter

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Parse reads front matter (as Split returns it) into its keys, as Claude
// Code does: YAML, else YAML again once values that YAML cannot read
// plain (a description holding ": " or "#") are quoted and leading tabs
// made spaces. When both fail the error tells why and the keys are none:
// Claude Code then reads the file as one without front matter, warning.
// Front matter that is no mapping (a list, a word) has no keys.
func Parse(fm string) (map[string]Value, error) {
	if keys, ok := simpleKeys(fm); ok {
		return keys, nil
	}
	keys, err := parseYAML(fm)
	if err == nil {
		return keys, nil
	}
	keys, err = parseYAML(leadingTabs.ReplaceAllStringFunc(quoteValues(fm), func(tabs string) string {
		return strings.Repeat("  ", len(tabs))
	}))
	if err != nil {
		return map[string]Value{}, fmt.Errorf("front matter is not YAML: %w", err)
	}
	return keys, nil
}

func parseYAML(s string) (map[string]Value, error) {
	root, err := parseDocument(s)
	if err != nil {
		return nil, err
	}
	keys := map[string]Value{}
	if root == nil || root.Kind != yaml.MappingNode {
		return keys, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		// A key given twice is the last one's, as in Claude Code.
		keys[deref(root.Content[i]).Value] = valueOf(root.Content[i+1])
	}
	return keys, nil
}

// The retry's rewriting, Claude Code's own: a "key: value" line whose
// value is not quoted, nor a flow list, and holds what YAML reads as
// syntax gets that value double-quoted.
var (
	keyLine     = regexp.MustCompile(`^([a-zA-Z_-]+):` + jsSpace + `+([^\n\r\x{2028}\x{2029}]+)$`)
	yamlSyntax  = regexp.MustCompile("[{}[\\]*&#!|>%@`]|: ")
	leadingTabs = regexp.MustCompile(`(?m)^\t+`)
)

func quoteValues(fm string) string {
	lines := strings.Split(fm, "\n")
	for i, line := range lines {
		m := keyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		k, v := m[1], m[2]
		switch {
		case len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\''),
			len(v) == 1 && (v == `"` || v == "'"),
			strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") && isList(v),
			!yamlSyntax.MatchString(v):
			continue
		}
		v = strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`)
		lines[i] = k + `: "` + v + `"`
	}
	return strings.Join(lines, "\n")
}

// parseDocument parses s whole (yaml.Unmarshal ignores what follows the
// first document, "[a] b" is a list there): nil for no document or for
// several, which Claude Code reads as a list, so as no keys.
func parseDocument(s string) (*yaml.Node, error) {
	d := yaml.NewDecoder(strings.NewReader(s))
	var doc, next yaml.Node
	if err := d.Decode(&doc); err == io.EOF {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if err := d.Decode(&next); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, nil
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return deref(doc.Content[0]), nil
}

// isList reports whether s is YAML for a list.
func isList(s string) bool {
	n, err := parseDocument(s)
	return err == nil && n != nil && n.Kind == yaml.SequenceNode
}
