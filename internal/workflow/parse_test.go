package workflow

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const full = `+++
name = "full"
description = "every directive"
tool = "codex"
[variables]
mode = "fast"
items = ["a", "b"]
+++
# Title
Prose before the first step describes the workflow.

## Step 1: Build
Timeout: 30s
OnFail: retry 2
` + "```sh\necho ${mode} $${HOME}\n```" + `

## IF mode == "fast" && steps.1.exit_code == 0
## Step 2: Fast
Tool: claude-code
Model: sonnet
OnFail: delegate codex
Say ${steps.1.output}.
## ELSE
## Step 3: Review
Tool: review
--range ${mode}
## ENDIF

## FOR x IN ${items} MAX 2
## Step 4: Each
Condition: x != "b"
OnFail: skip
Handle ${x} after ${steps.4.output}
## ENDFOR

## INCLUDE sub/inc.md

## Step 6: Debate
Tool: debate
Is ${steps.4[0].output} right?
`

func TestCompileEveryDirective(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	write(t, dir, "sub/inc.md", "## Step 5: Included\nTier: main\nDo ${mode}.\n")
	p, err := Compile(write(t, dir, "wf.md", full), map[string]string{"mode": "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "full" || p.Tool != "codex" || p.Vars["mode"] != "slow" || p.Vars["items"] != "a\nb" || p.Steps != 6 {
		t.Fatalf("plan header: %+v", p)
	}
	if len(p.Nodes) != 5 {
		t.Fatalf("want 5 top nodes (step, if, for, included step, step), got %d", len(p.Nodes))
	}
	s1 := p.Nodes[0].Step
	if s1.Kind != KindShell || s1.Body != "echo ${mode} $${HOME}\n" || s1.Timeout != "30s" || s1.OnFail != (OnFail{Action: OnFailRetry, N: 2}) || s1.Pos.Line != 12 {
		t.Fatalf("step 1: %+v", s1)
	}
	iff := p.Nodes[1]
	if iff.Type != NodeIf || len(iff.Then) != 1 || len(iff.Else) != 1 {
		t.Fatalf("if: %+v", iff)
	}
	s2 := iff.Then[0].Step
	if s2.Kind != KindAgent || s2.Tool != "claude-code" || s2.Model != "sonnet" || s2.OnFail.Tool != "codex" || s2.Body != "Say ${steps.1.output}." {
		t.Fatalf("step 2: %+v", s2)
	}
	if s3 := iff.Else[0].Step; s3.Kind != KindReview || s3.Body != "--range ${mode}" {
		t.Fatalf("step 3: %+v", s3)
	}
	loop := p.Nodes[2]
	if loop.Type != NodeFor || loop.Var != "x" || loop.List != "${items}" || loop.Max != 2 || loop.Body[0].Step.Condition != `x != "b"` {
		t.Fatalf("for: %+v", loop)
	}
	if s5 := p.Nodes[3].Step; s5.Num != 5 || s5.Tier != "main" || !strings.HasSuffix(s5.Pos.File, "sub/inc.md") || s5.Pos.Line != 1 {
		t.Fatalf("included step: %+v", s5)
	}
	if s6 := p.Nodes[4].Step; s6.Kind != KindDebate || s6.Body != "Is ${steps.4[0].output} right?" {
		t.Fatalf("step 6: %+v", s6)
	}
}

// The front matter's isolate is the plan's; a step's Isolate: its own.
func TestCompileIsolate(t *testing.T) {
	text := "+++\nname = \"iso\"\nisolate = \"fs\"\n[variables]\nisolate = \"disk\"\n+++\n" +
		"## Step 1: A\nIsolate: fs, net\nhi\n## Step 2: B\nho\n"
	p, err := Compile(write(t, t.TempDir(), "wf.md", text), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Isolate != "fs" || p.Nodes[0].Step.Isolate != "fs, net" || p.Nodes[1].Step.Isolate != "" {
		t.Fatalf("plan %q, steps %q and %q", p.Isolate, p.Nodes[0].Step.Isolate, p.Nodes[1].Step.Isolate)
	}
}

func TestCompileErrorsAtFileLine(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown directive", "## Step 1: A\nhi\n## WHILE x\n", "wf.md:3: unknown directive"},
		{"unknown key", "## Step 1: A\nRetries: 3\nhi\n", "wf.md:2: unknown step key \"Retries\""},
		{"bad onfail", "## Step 1: A\nOnFail: retry forever\nhi\n", "wf.md:2: OnFail:"},
		{"bad tool", "## Step 1: A\nTool: gpt\nhi\n", "wf.md:2: Tool:"},
		{"bad timeout", "## Step 1: A\nTimeout: soon\nhi\n", "wf.md:2: Timeout:"},
		{"bad worktree", "## Step 1: A\nWorktree: yes\nhi\n", `wf.md:2: Worktree: "yes": want true or false`},
		{"shell worktree", "## Step 1: A\nWorktree: true\n```sh\ntrue\n```\n", "wf.md:1: step 1: Worktree is for agent steps"},
		{"bad isolate", "## Step 1: A\nhi\n## Step 2: B\nTool: codex\nIsolate: disk\nho\n", `wf.md:5: Isolate: "disk": each word is one of fs, net (or none alone)`},
		{"isolate none and fs", "## Step 1: A\nIsolate: none,fs\nhi\n", `wf.md:2: Isolate: "none,fs": none stands alone`},
		{"shell isolate", "## Step 1: A\nIsolate: fs\n```sh\ntrue\n```\n", "wf.md:1: step 1: Isolate is for agent steps"},
		{"front matter isolate", "+++\nname = \"x\"\n\n  isolate = \"fs,disk\"\n+++\n## Step 1: A\nhi\n", `wf.md:4: front matter isolate: "fs,disk": each word is one of fs, net (or none alone)`},
		{"front matter isolate not a string", "+++\nisolate = true\n+++\n## Step 1: A\nhi\n", "wf.md:2: front matter:"},
		{"bad base", "## Step 1: A\nhi\n## Step 2: B\nBase: step 1\nho\n", `wf.md:4: Base: "step 1": want steps.N`},
		{"base later", "## Step 1: A\nBase: steps.2\nhi\n## Step 2: B\nho\n", "wf.md:1: step 1: Base: step 2 does not come before this point"},
		{"base self", "## FOR x IN a, b\n## Step 1: A\nBase: steps.1\nhi ${x}\n## ENDFOR\n", "wf.md:2: step 1: Base: step 1 does not come before this point"},
		{"base shell", "## Step 1: A\n```sh\ntrue\n```\n## Step 2: B\nBase: steps.1\nho\n", "wf.md:5: step 2: Base: step 1 is a shell step"},
		{"shell base", "## Step 1: A\nhi\n## Step 2: B\nBase: steps.1\n```sh\ntrue\n```\n", "wf.md:3: step 2: Base is for agent steps"},
		{"base no worktree", "## Step 1: A\nhi\n## Step 2: B\nBase: steps.1\nWorktree: false\nho\n", "wf.md:3: step 2: Base starts the step's worktree"},
		{"bad condition", "## Step 1: A\nCondition: a ==\nhi\n", "wf.md:2: Condition:"},
		{"malformed heading", "## Step one\nhi\n", "wf.md:1: malformed step heading"},
		{"duplicate step", "## Step 1: A\nhi\n## Step 1: B\nho\n", "wf.md:3: step 1 is already defined at"},
		{"no prompt", "## Step 1: A\nTool: codex\n", "wf.md:1: step 1: no prompt"},
		{"text outside", "## Step 1: A\nhi\n## ENDIF\n", "ENDIF without a matching opening line"},
		{"prose after if", "## IF 1 == 1\nstray text\n## ENDIF\n", "wf.md:2: text outside a step"},
		{"if unclosed", "## IF 1 == 1\n## Step 1: A\nhi\n", "wf.md:1: IF without ENDIF"},
		{"for unclosed", "## FOR x IN a MAX 2\n## Step 1: A\nhi ${x}\n", "wf.md:1: FOR without ENDFOR"},
		{"for bound", "## FOR x IN a, b, c MAX 2\n## Step 1: A\nhi ${x}\n## ENDFOR\n", "wf.md:1: FOR: the list has 3 items, more than MAX 2"},
		{"unknown var", "## Step 1: A\nhi ${nope}\n", "wf.md:1: ${nope}: no such variable"},
		{"later step", "## Step 1: A\nhi ${steps.2.output}\n## Step 2: B\nho\n", "wf.md:1: ${steps.2.output}: step 2 does not come before"},
		{"bad field", "## Step 1: A\nhi\n## Step 2: B\n${steps.1.stdout}\n", "no field \"stdout\""},
		{"too many indexes", "## Step 1: A\nhi\n## Step 2: B\n${steps.1[0].output}\n", "step 1 is inside 0 FOR loops, not 1"},
		{"loop var out of scope", "## FOR x IN a MAX 2\n## Step 1: A\nhi ${x}\n## ENDFOR\n## Step 2: B\n${x}\n", "wf.md:5: ${x}: no such variable"},
		{"shell with prose", "## Step 1: A\nrun this:\n```sh\necho\n```\n", "wf.md:2: step 1: a shell step's body is one ```sh block"},
		{"shell with tool", "## Step 1: A\nTool: codex\n```sh\necho\n```\n", "a shell step has no Tool"},
		{"unclosed fence", "## Step 1: A\n```sh\necho\n", "is never closed"},
		{"dash front matter", "---\nname = \"x\"\n---\n", "wf.md:1: front matter is TOML between +++ lines"},
		{"unknown front matter key", "+++\nname = \"x\"\nowner = \"me\"\n+++\n## Step 1: A\nhi\n", "wf.md:3: unknown front matter key \"owner\""},
		{"unterminated ref", "## Step 1: A\nhi ${oops\n", "unterminated ${"},
		{"tier with model", "## Step 1: A\nTier: main\nModel: m\nhi\n", "wf.md:1: step 1: a Tier picks its own model"},
		{"delegate shell", "## Step 1: A\nOnFail: delegate codex\n```sh\necho\n```\n", "a shell step has no Tool, Tier, Model or OnFail delegate"},
		// Issue 23: what is neither prose nor a directive.
		{"no steps", "+++\nname = \"x\"\n+++\nJust prose.\n", "wf.md:1: no steps"},
		{"empty file", "", "wf.md:1: no steps"},
		{"nul byte", "## Step 1: A\nhi\x00there\n", "wf.md:2: not text: byte 3 of the line is a NUL"},
		{"not utf-8", "# Caf\xe9\n## Step 1: A\nhi\n", "wf.md:1: not text: byte 6 of the line (0xe9) is not UTF-8"},
		{"binary in a prompt", "## Step 1: A\nhi\n\xff\xfe\n", "wf.md:3: not text: byte 1"},
		{"for max negative", "## FOR x IN a, b MAX -1\n## Step 1: A\nhi ${x}\n## ENDFOR\n", `wf.md:1: FOR: MAX "-1": want a whole number`},
		{"for max without number", "## FOR x IN a, b MAX\n## Step 1: A\nhi ${x}\n## ENDFOR\n", `wf.md:1: FOR: MAX "": want`},
		{"for max and more", "## FOR x IN a MAX 5 more\n## Step 1: A\nhi ${x}\n## ENDFOR\n", `wf.md:1: FOR: MAX "5 more"`},
		{"for max zero", "## FOR x IN a MAX 0\n## Step 1: A\nhi ${x}\n## ENDFOR\n", "wf.md:1: FOR: MAX 0: want 1 to 1000"},
		{"for max huge", "## FOR x IN a MAX 99999999999999999999\n## Step 1: A\nhi ${x}\n## ENDFOR\n", "wf.md:1: FOR: MAX 99999999999999999999: want 1 to 1000"},
		{"for max twice", "## FOR x IN a MAX 2 MAX 3\n## Step 1: A\nhi ${x}\n## ENDFOR\n", "wf.md:1: FOR: MAX given 2 times"},
		{"for lower-case in", "## FOR x in a, b\n## Step 1: A\nhi ${x}\n## ENDFOR\n", "wf.md:1: FOR: want ## FOR x IN list"},
		{"for no list", "## FOR x IN MAX 3\n## Step 1: A\nhi ${x}\n## ENDFOR\n", "wf.md:1: FOR: no list after IN"},
		{"for empty list", "## FOR x IN ,\n## Step 1: A\nhi ${x}\n## ENDFOR\n", `wf.md:1: FOR: the list "," has no items`},
		{"if without condition", "## IF\n## Step 1: A\nhi\n## ENDIF\n", "wf.md:1: IF without a condition"},
		{"include without path", "## Step 1: A\nhi\n## INCLUDE\n", "wf.md:3: INCLUDE without a path"},
		{"endif and more", "## IF 1 == 1\n## Step 1: A\nhi\n## ENDIF now\n", `wf.md:4: ENDIF takes nothing after it: "## ENDIF now"`},
		{"lower-case directive", "## Step 1: A\nhi\n## for x IN a\n", `wf.md:3: unknown directive "## for x IN a": write it ## FOR`},
		{"step number too large", "## Step 99999999999999999999: A\nhi\n", "wf.md:1: step number 99999999999999999999 is too large"},
		{"fence in prose never closed", "Prose.\n```text\n## Step 1: A\nhi\n", "wf.md:2: a ``` block is never closed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(write(t, t.TempDir(), "wf.md", c.text), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error containing %q, got %v", c.want, err)
			}
		})
	}
}

func TestIncludeCycleAndLocation(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "## Step 1: A\nhi\n## INCLUDE b.md\n")
	write(t, dir, "b.md", "## Step 2: B\nho\n## INCLUDE a.md\n")
	_, err := Compile(filepath.Join(dir, "a.md"), nil)
	if err == nil || !strings.Contains(err.Error(), "include cycle") || !strings.Contains(err.Error(), "b.md:3") {
		t.Fatalf("want an include cycle at b.md:3, got %v", err)
	}
	write(t, dir, "c.md", "## Step 1: C\nhi\n## INCLUDE d.md\n")
	write(t, dir, "d.md", "## Step 2: D\n\n## BOGUS\n")
	if _, err = Compile(filepath.Join(dir, "c.md"), nil); err == nil || !strings.Contains(err.Error(), "d.md:1: step 2: no prompt") {
		t.Fatalf("an error in an included file names that file, got %v", err)
	}
	write(t, dir, "e.md", "## INCLUDE missing.md\n")
	if _, err = Compile(filepath.Join(dir, "e.md"), nil); err == nil || !strings.Contains(err.Error(), "e.md:1: INCLUDE") {
		t.Fatalf("a missing include is located, got %v", err)
	}
}

func TestUnknownVarOverride(t *testing.T) {
	p := write(t, t.TempDir(), "wf.md", "+++\n[variables]\na = 1\n+++\n## Step 1: A\n${a}\n")
	if _, err := Compile(p, map[string]string{"b": "x"}); err == nil || !strings.Contains(err.Error(), "--var b") {
		t.Fatalf("want an unknown --var refused, got %v", err)
	}
	plan, err := Compile(p, nil)
	if err != nil || plan.Vars["a"] != "1" {
		t.Fatalf("a number default becomes its text: %v %v", plan, err)
	}
}

// Issue 23: 50 KB of random bytes is refused at the line that shows it
// is not text, not compiled as a workflow of no steps.
func TestRandomBytesRefused(t *testing.T) {
	data := make([]byte, 50<<10)
	r := rand.New(rand.NewPCG(23, 6))
	for i := range data {
		data[i] = byte(r.UintN(256))
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "rand.md")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Compile(p, nil)
	var e *Error
	if !errors.As(err, &e) || e.Pos.File != p || e.Pos.Line < 1 || !strings.Contains(e.Msg, "not text") {
		t.Fatalf("want a located \"not text\" error, got %v", err)
	}
}

func TestIncludedFileWithoutSteps(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "empty.md", "Nothing but prose.\n")
	// Each file includes the next twice: without the check, the one at
	// the bottom would be read 2^n times.
	write(t, dir, "f0.md", "## IF 1 == 1\n## ENDIF\n")
	for i := 1; i <= 12; i++ {
		write(t, dir, fmt.Sprintf("f%d.md", i), fmt.Sprintf("## INCLUDE f%d.md\n## INCLUDE f%d.md\n", i-1, i-1))
	}
	for _, c := range []struct{ text, want string }{
		{"## Step 1: A\nhi\n## INCLUDE empty.md\n", "wf.md:3: INCLUDE " + filepath.Join(dir, "empty.md") + ": the file has no steps"},
		{"## Step 1: A\nhi\n## INCLUDE f12.md\n", "f1.md:1: INCLUDE " + filepath.Join(dir, "f0.md") + ": the file has no steps"},
	} {
		if _, err := Compile(write(t, dir, "wf.md", c.text), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
}

// Markdown prose keeps working: paragraphs, lists, quotes, tables and
// ``` blocks (## lines in them too) before the first step, lists, headings
// of a lower level and fences in a prompt, kept as written.
func TestMarkdownProse(t *testing.T) {
	const prompt = "Build it, ünïcödé and 漢字:\n\n- with a list\n  1. nested\n### a smaller heading\n\tindented \x1b[1mbold\x1b[0m\n\n```go\n## in a fence inside the prompt\n```"
	text := "+++\nname = \"prose\"\n+++\n# Title\n\nA paragraph that\nspans lines, with *emphasis* and a [link](http://x).\n\n" +
		"- a list item\n- another: with a colon\n  1. nested\n\n> a quote\n\n| table | row |\n|---|---|\n\n" +
		"```text\n## not a directive: inside a fence\n```\n\n## Step 1: Build\n" + prompt + "\n"
	p, err := Compile(write(t, t.TempDir(), "wf.md", text), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Nodes[0].Step; p.Steps != 1 || s.Kind != KindAgent || s.Body != prompt {
		t.Fatalf("step %+v", s)
	}
}
