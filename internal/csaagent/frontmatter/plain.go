package frontmatter

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// simpleKeys reads front matter made only of "key: value" lines whose
// values are words: letters first, then letters, digits, spaces and
// . , ; ( ) _ / + = - (so no quote, comment, list, mapping or YAML
// indicator), none reading as a core schema null or bool. YAML reads such
// lines as those strings, trailing spaces dropped; most agents and skills
// hold nothing else, and a start reads dozens of them, which the YAML
// parser takes 30 µs each to read. ok is false for anything else, which
// the parser reads (TestSimpleKeysAreYAML: the two agree).
func simpleKeys(fm string) (keys map[string]Value, ok bool) {
	keys = map[string]Value{}
	for i, line := range strings.Split(fm, "\n") {
		if line == "" {
			continue
		}
		k := 0
		for k < len(line) && isKeyChar(line[k]) {
			k++
		}
		if k == 0 || line[0] == '-' || !strings.HasPrefix(line[k:], ": ") {
			return nil, false
		}
		start := k + 2
		for start < len(line) && line[start] == ' ' {
			start++
		}
		v := strings.TrimRight(line[start:], " ")
		if v == "" || !isLetter(v[0]) || strings.IndexFunc(v, notWordChar) >= 0 || resolvePlain(v) != "!!str" {
			return nil, false
		}
		node := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: i + 1, Column: start + 1}
		keys[line[:k]] = Value{kind: text, s: v, node: node}
	}
	return keys, len(keys) > 0
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isKeyChar(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-' }

func notWordChar(r rune) bool {
	return r >= 0x80 || !isKeyChar(byte(r)) && !strings.ContainsRune(" .,;()/+=", r)
}
