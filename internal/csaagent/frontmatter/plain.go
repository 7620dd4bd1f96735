package frontmatter

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// simpleKeys reads front matter made only of "key: value" lines whose
// values are words or a flow list of words ("[file]"). A word starts with
// a letter and holds letters, digits, spaces and . , ; ( ) _ / + = -, and
// outside a list * and a colon not followed by a space ("Bash(git
// status:*)"); none reads as a core schema null or bool. YAML reads such
// lines as those strings, trailing spaces dropped; most agents, skills
// and commands hold nothing else, and a start reads dozens of them, which
// the YAML parser takes 30 µs each to read. ok is false for anything
// else, which the parser reads (TestSimpleKeysAreYAML: the two agree).
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
		v, ok := simpleValue(strings.TrimRight(line[start:], " "), i+1, start+1)
		if !ok {
			return nil, false
		}
		keys[line[:k]] = v
	}
	return keys, len(keys) > 0
}

// simpleValue reads a value of simpleKeys that starts at line and column
// (YAML's, from 1).
func simpleValue(s string, line, column int) (Value, bool) {
	inner, isList := strings.CutPrefix(s, "[")
	if !isList {
		if !isWord(s, ":*") || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
			return Value{}, false
		}
		return Value{kind: text, s: s, node: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: line, Column: column}}, true
	}
	inner, closed := strings.CutSuffix(inner, "]")
	if !closed {
		return Value{}, false
	}
	node := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq", Line: line, Column: column}
	v := Value{kind: list, node: node}
	at := column + 1
	for _, item := range strings.Split(inner, ",") {
		lead := len(item) - len(strings.TrimLeft(item, " "))
		word := strings.TrimSpace(item)
		if !isWord(word, "") || strings.ContainsAny(word, ",") {
			return Value{}, false
		}
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: word, Line: line, Column: at + lead}
		node.Content = append(node.Content, n)
		v.items = append(v.items, Value{kind: text, s: word, node: n})
		at += len(item) + 1
	}
	return v, true
}

// isWord reports whether s is a word of simpleKeys, more holding the
// characters allowed besides.
func isWord(s, more string) bool {
	if s == "" || !isLetter(s[0]) || resolvePlain(s) != "!!str" {
		return false
	}
	for _, r := range s {
		if r >= 0x80 || !isKeyChar(byte(r)) && !strings.ContainsRune(" .,;()/+="+more, r) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isKeyChar(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-' }
