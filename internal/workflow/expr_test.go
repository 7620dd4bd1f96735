package workflow

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

func lookupOf(m map[string]string) Lookup {
	return func(r Ref) (string, error) {
		v, ok := m[r.String()]
		if !ok {
			return "", fmt.Errorf("no %s", r)
		}
		return v, nil
	}
}

func TestExprEval(t *testing.T) {
	look := lookupOf(map[string]string{"mode": "fast", "n": "10", "steps.2.verdict": "pass", "steps.3[1].output": "all tests PASSED\n", "empty": ""})
	cases := map[string]bool{
		`mode == "fast"`:                       true,
		`mode != 'fast'`:                       false,
		`${mode} == "fast"`:                    true,
		`n == 10.0`:                            true,
		`n > 9 && n <= 10`:                     true,
		`n < 2`:                                false,
		`steps.2.verdict == "pass" || n == 0`:  true,
		`!(steps.2.verdict == "pass")`:         false,
		`steps.3[1].output contains "PASSED"`:  true,
		`empty`:                                false,
		`!empty && (mode == "x" || n >= 10)`:   true,
		`mode == "slow" || mode == "fast"`:     true,
		`"a \"q\"" contains "\"q"`:             true,
		`0`:                                    false,
		`true && !false`:                       true,
		`steps.2.verdict == "fail" && missing`: false, // short-circuit: missing is never read
	}
	for src, want := range cases {
		e, err := ParseExpr(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := e.Eval(look)
		if err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
	if e, _ := ParseExpr(`mode > 3`); e != nil {
		if _, err := e.Eval(look); err == nil || !strings.Contains(err.Error(), "needs numbers") {
			t.Errorf("comparing a word with > must fail, got %v", err)
		}
	}
}

func TestExprSyntaxErrors(t *testing.T) {
	for _, src := range []string{``, `a ==`, `(a == b`, `a = b`, `"open`, `a b`, `a & b`, `${steps.x.output} == 1`, `steps.1.bogus == 1`, `#`} {
		if _, err := ParseExpr(src); err == nil {
			t.Errorf("%q parsed; want an error", src)
		}
	}
	e, err := ParseExpr(`steps.1.output == x || ${y} contains "z"`)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, r := range e.Refs() {
		refs = append(refs, r.String())
	}
	if strings.Join(refs, " ") != "steps.1.output x y" {
		t.Fatalf("refs: %v", refs)
	}
}

func TestExpandQuotesShellValues(t *testing.T) {
	hostile := "x'; touch pwned; echo '$(id) \x60id\x60\nline2 \"q\""
	look := lookupOf(map[string]string{"steps.1.output": hostile, "name": "plain"})
	script, err := Expand("printf '%s|' ${steps.1.output} ${name} $${HOME}", look, true)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=/home/h"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != hostile+"|plain|/home/h|" {
		t.Fatalf("the value must reach the command as one word, unchanged: %q", out)
	}
	if !strings.HasSuffix(script, " ${HOME}") {
		t.Fatalf("$${ is a literal ${: %q", script)
	}
	prompt, err := Expand("say ${steps.1.output}", look, false)
	if err != nil || prompt != "say "+hostile {
		t.Fatalf("a prompt gets the value as it is: %q %v", prompt, err)
	}
}

func TestSplitList(t *testing.T) {
	for in, want := range map[string]string{
		"a, b ,c":         "a|b|c",
		"one\ntwo, 2\n\n": "one|two, 2",
		"  ":              "",
		"single":          "single",
	} {
		if got := strings.Join(SplitList(in), "|"); got != want {
			t.Errorf("SplitList(%q) = %q, want %q", in, got, want)
		}
	}
}
