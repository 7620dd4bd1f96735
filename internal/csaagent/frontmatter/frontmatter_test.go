package frontmatter

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// show writes a value for the tables: a string as itself, others marked
// by their kind.
func show(v Value) string {
	switch v.kind {
	case list:
		var items []string
		for _, it := range v.items {
			items = append(items, show(it))
		}
		return "[" + strings.Join(items, "|") + "]"
	case mapping:
		return "map"
	case null:
		return "null"
	case number:
		return "number " + v.s
	case boolean:
		return "bool " + v.s
	}
	return v.s
}

// Each case's expected keys, failure and body are what Claude Code
// 2.1.197's reading gives (its pattern, Bun's YAML parser, its retry),
// run on the same text; the shapes are those of published agents,
// skills and commands.
var claudeCases = []struct {
	name, src string
	want      map[string]string
	failed    bool
	body      string
}{
	{"examples on one line: retried quoted", "---\nname: r\ndescription: Use it. Examples: <example>Context: code was written. user: \"review\" assistant: \"ok\"</example>\nmodel: sonnet\n---\nbody\n",
		map[string]string{"name": "r", "description": `Use it. Examples: <example>Context: code was written. user: "review" assistant: "ok"</example>`, "model": "sonnet"}, false, "body\n"},
	{"examples over lines: not YAML", "---\nname: r\ndescription: Use it when needed.\nContext: a user asks\n<example>\nuser: hi\n</example>\n---\nbody\n",
		map[string]string{}, true, "body\n"},
	{"\\n in a plain scalar stays", "---\nname: r\ndescription: One.\\n\\n<example>\\nContext: x\\nuser: \"hi\"\\n</example>\n---\n",
		map[string]string{"name": "r", "description": `One.\n\n<example>\nContext: x\nuser: "hi"\n</example>`}, false, ""},
	{"\\ and \" kept by the retry", "---\nname: r\ndescription: A: \\\"q\\\" C:\\\\p\n---\n",
		map[string]string{"name": "r", "description": `A: \"q\" C:\\p`}, false, ""},
	{"# after a space is a comment", "---\nname: r # c\ndescription: Handles C# code #1 # note\ncolor: \"#ff0000\"\nissue: x#42\n---\n",
		map[string]string{"name": "r", "description": "Handles C# code", "color": "#ff0000", "issue": "x#42"}, false, ""},
	{"quoted", "---\nname: \"r\"\ndescription: 'It''s: yes'\nother: \"a\\nb: \\\"c\\\"\"\n---\n",
		map[string]string{"name": "r", "description": "It's: yes", "other": "a\nb: \"c\""}, false, ""},
	{"block scalars", "---\ndescription: |\n  One\n  Two: x\n\n  Three\ntools: >\n  Read,\n  Grep\nnote: >-\n  a\n  b\n---\n",
		map[string]string{"description": "One\nTwo: x\n\nThree\n", "tools": "Read, Grep\n", "note": "a b"}, false, ""},
	{"lists", "---\na: [Read, \"Bash(git:*)\"]\nb:\n  - Read\n  - Edit\nc:\n- Write\nhint: [file]\n---\n",
		map[string]string{"a": "[Read|Bash(git:*)]", "b": "[Read|Edit]", "c": "[Write]", "hint": "[file]"}, false, ""},
	{"[a] [b] is retried quoted", "---\nhint: [file] [mode]\n---\n", map[string]string{"hint": "[file] [mode]"}, false, ""},
	{"a list kept by the retry", "---\na: [Read, \"Bash(git:*)\"]\nhint: [file] [mode]\n---\n", map[string]string{"a": "[Read|Bash(git:*)]", "hint": "[file] [mode]"}, false, ""},
	{"tools: * is retried quoted", "---\nname: r\ntools: *\n---\n", map[string]string{"name": "r", "tools": "*"}, false, ""},
	{"tabs become spaces on the retry", "---\nname: r\ntools:\n\t- Read\n\t- Grep\n---\n", map[string]string{"name": "r", "tools": "[Read|Grep]"}, false, ""},
	{"YAML 1.2 core schema", "---\na: yes\nb: no\nc: on\nd: True\ne: 0x1F\nf: 010\ng: 1.0\nh: ~\ni:\nj: 2024-01-01\nk: 0b1\n---\n",
		map[string]string{"a": "yes", "b": "no", "c": "on", "d": "bool true", "e": "number 31", "f": "number 10", "g": "number 1", "h": "null", "i": "null", "j": "2024-01-01", "k": "0b1"}, false, ""},
	{"a key given twice is the last", "---\nname: a\nname: b\n---\n", map[string]string{"name": "b"}, false, ""},
	{"anchors", "---\nname: &n r\ndescription: *n\n---\n", map[string]string{"name": "r", "description": "r"}, false, ""},
	{"a mapping", "---\nhooks:\n  Stop:\n    - matcher: x\n---\n", map[string]string{"hooks": "map"}, false, ""},
	{"not a mapping", "---\n- a\n- b\n---\nbody\n", map[string]string{}, false, "body\n"},
	{"an indented continuation holding \": \"", "---\ndescription: One\n  two\n  and: more\n---\n", map[string]string{}, true, ""},
	{"CRLF lines are not retried", "---\r\nname: r\r\ndescription: Use it: now\r\n---\r\n\r\nbody\r\n", map[string]string{}, true, "body\n"},
	{"CRLF", "---\r\nname: r\r\n---\r\nbody\r\n", map[string]string{"name": "r"}, false, "body\n"},
	{"the first --- ends it", "---\nname: r\ndescription: a --- b\n---\nbody\n", map[string]string{"name": "r", "description": "a"}, false, "b\n---\nbody\n"},
	{"---- ends it", "---\nname: r\n----\nbody\n", map[string]string{"name": "r"}, false, "-\nbody\n"},
	{"white space after it is no body", "---  \n\nname: r\n---  \n\n\n  # Title\nbody\n", map[string]string{"name": "r"}, false, "# Title\nbody\n"},
	{"empty", "---\n---\nbody", map[string]string{}, false, "body"},
}

func TestReadAsClaudeCode(t *testing.T) {
	for _, c := range claudeCases {
		fm, body, err := Split([]byte(c.src))
		if err != nil || body != c.body {
			t.Errorf("%s: Split: body %q, %v; want %q", c.name, body, err, c.body)
			continue
		}
		keys, err := Parse(fm)
		if (err != nil) != c.failed {
			t.Errorf("%s: Parse error %v, want failed %v", c.name, err, c.failed)
		}
		got := map[string]string{}
		for k, v := range keys {
			got[k] = show(v)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// Without the opening line, or without the end, a file is all body.
func TestNoFrontMatter(t *testing.T) {
	for _, src := range []string{"# just markdown\n", "---\nname: x\n", "\ufeff---\nname: x\n---\nbody\n", "--- x\nname: y\n---\n", ""} {
		if fm, body, err := Split([]byte(src)); !errors.Is(err, ErrNone) || fm != "" || body != src {
			t.Errorf("%q: %q %q %v", src, fm, body, err)
		}
	}
}

func TestValues(t *testing.T) {
	f, err := Parse("name: x\nflag: true\nno: false\ntools:\n  - Read\n  - 'Bash(git:*)'\n  - 3\ncsv: Read, Grep,\nhooks:\n  Stop:\n    - matcher: x\nn: 12\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := f["tools"].List(); !reflect.DeepEqual(got, []string{"Read", "Bash(git:*)"}) || !f["tools"].IsList() {
		t.Errorf("tools = %q (Claude Code drops a list's numbers)", got)
	}
	if got := f["csv"].List(); !reflect.DeepEqual(got, []string{"Read", "Grep"}) || f["csv"].IsList() {
		t.Errorf("csv = %q", got)
	}
	if !f["flag"].Bool(false) || f["no"].Bool(true) || !f["absent"].Bool(true) || f["absent"].Bool(false) {
		t.Errorf("flag %v, no %v, absent %v", f["flag"].Bool(false), f["no"].Bool(true), f["absent"].Bool(true))
	}
	for _, v := range []Value{{kind: text, s: "true"}, {kind: text, s: "yes"}, {kind: null}, {kind: number, s: "1"}} {
		if got, want := v.Bool(true), v.s == "true"; got != want {
			t.Errorf("Bool(%+v) = %v: Claude Code's flags are true or \"true\", else false", v, got)
		}
	}
	if _, err := f["tools"].Scalar("tools"); err == nil {
		t.Error("Scalar of a list: no error")
	}
	if _, err := f["hooks"].Scalar("hooks"); err == nil || !strings.Contains(err.Error(), "mapping") || !f["hooks"].IsMapping() {
		t.Errorf("Scalar of a mapping: %v", err)
	}
	var hooks map[string][]struct{ Matcher string }
	if err := f["hooks"].Decode(&hooks); err != nil || len(hooks["Stop"]) != 1 || hooks["Stop"][0].Matcher != "x" {
		t.Errorf("hooks decoded: %v %v", hooks, err)
	}
	if s, err := f["n"].Scalar("n"); err != nil || s != "12" || f["n"].IsText() || !f["name"].IsText() {
		t.Errorf("a number's text: %q %v", s, err)
	}
}

// A plain scalar starting with none of coreFirst is a string to the core
// schema's patterns.
func TestCoreFirst(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, rest := range []string{"", "1", ".5", "x1F", "ull", "rue", "alse", "inf", "nan", "e3"} {
			s := string(rune(c)) + rest
			if strings.ContainsRune(coreFirst, rune(c)) {
				continue
			}
			for _, re := range []*regexp.Regexp{coreNull, coreBool, coreInt, coreFloat} {
				if re.MatchString(s) {
					t.Errorf("%q matches %s: add %q to coreFirst", s, re, rune(c))
				}
			}
		}
	}
}
