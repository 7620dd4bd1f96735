package csaenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// constants are the CSA_ names this package's source declares as
// constants.
func constants(t *testing.T) []string {
	t.Helper()
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, "csaenv.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
			for _, s := range d.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						names = append(names, s)
					}
				}
			}
		}
		return true
	})
	return names
}

// TestVarsAreTheConstants: the table lists every constant once, and
// nothing else, so that the generated documentation misses no name.
func TestVarsAreTheConstants(t *testing.T) {
	consts := constants(t)
	if len(consts) < 20 {
		t.Fatalf("found %d constants in csaenv.go: %v", len(consts), consts)
	}
	var listed []string
	for _, v := range Vars {
		if !strings.HasPrefix(v.Name, "CSA_") || v.Meaning == "" || v.SetBy == "" {
			t.Errorf("incomplete entry %+v", v)
		}
		if slices.Contains(listed, v.Name) {
			t.Errorf("%s is listed twice", v.Name)
		}
		listed = append(listed, v.Name)
	}
	slices.Sort(consts)
	slices.Sort(listed)
	if !slices.Equal(consts, listed) {
		t.Errorf("constants %v\nlisted    %v", consts, listed)
	}
	for _, n := range Run {
		if !slices.Contains(consts, n) {
			t.Errorf("Run names %s, no constant", n)
		}
	}
}

// TestMarkdown: a header, its rule and a row per variable, no cell broken
// by a | of a meaning.
func TestMarkdown(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(Markdown(), "\n"), "\n")
	if len(lines) != len(Vars)+2 || lines[0] != "| Variable | Meaning | Set by |" {
		t.Fatalf("%d lines for %d variables:\n%s", len(lines), len(Vars), Markdown())
	}
	for i, v := range Vars {
		row := lines[i+2]
		if strings.Count(row, "|") != 4 || !strings.HasPrefix(row, "| `"+v.Name+"` | ") {
			t.Errorf("row %d is %q", i, row)
		}
	}
}
