package tool

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestNoHandWrittenSchemas fails when a tool of csa-agent carries a
// hand-written input schema again: every Schema method under
// internal/csaagent must return SchemaOf of the tool's input type, and no
// string holds a JSON Schema's properties. The exceptions are named:
// an MCP server's tool (the server's own schema) and the model clients'
// test suite (a request's tool, sent through as given).
func TestNoHandWrittenSchemas(t *testing.T) {
	const root = ".." // internal/csaagent
	allowed := map[string]bool{"mcp.mcpTool": true}
	skipDirs := map[string]bool{filepath.Join(root, "llm"): true}
	jsonSchema := regexp.MustCompile(`"(additionalProperties|properties)"\s*:`)
	fset := token.NewFileSet()
	methods := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && skipDirs[path] {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv == nil || n.Name.Name != "Schema" || allowed[f.Name.Name+"."+recvName(n)] {
					return true
				}
				methods++
				if !returnsSchemaOf(n) {
					t.Errorf("%s: %s.Schema does not return SchemaOf[its input type](): derive the schema from the input struct",
						fset.Position(n.Pos()), recvName(n))
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(n.Value); err == nil && jsonSchema.MatchString(s) {
					t.Errorf("%s: a JSON Schema written by hand: derive it with SchemaOf", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if methods < 2 { // the built-in tools' base and the Skill tool
		t.Errorf("found %d Schema methods: is the walk looking in the right place?", methods)
	}
}

// recvName is the receiver's type name, without pointer or type arguments.
func recvName(fn *ast.FuncDecl) string {
	e := fn.Recv.List[0].Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}

// returnsSchemaOf: the body is `return SchemaOf[T]()` or
// `return tool.SchemaOf[T]()`.
func returnsSchemaOf(fn *ast.FuncDecl) bool {
	if fn.Body == nil || len(fn.Body.List) != 1 {
		return false
	}
	ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	idx, ok := call.Fun.(*ast.IndexExpr)
	if !ok {
		return false
	}
	switch f := idx.X.(type) {
	case *ast.Ident:
		return f.Name == "SchemaOf"
	case *ast.SelectorExpr:
		pkg, ok := f.X.(*ast.Ident)
		return ok && pkg.Name == "tool" && f.Sel.Name == "SchemaOf"
	}
	return false
}

// TestSchemaOf pins the derivation's rules on a type of its own: json
// names, required = no omitempty, descriptions, the extras, nested structs,
// and the normalisation (no null in a type, an empty object's properties).
func TestSchemaOf(t *testing.T) {
	type item struct {
		Name string `json:"name" jsonschema:"the name" jsonschema_extras:"minLength=1"`
	}
	type input struct {
		Mode  string   `json:"mode" jsonschema_extras:"enum=a|b"`
		N     *bool    `json:"-n,omitempty" jsonschema:"a flag"`
		Count int      `json:"count,omitempty" jsonschema_extras:"minimum=0,default=3"`
		URL   string   `json:"url,omitempty" jsonschema_extras:"format=uri"`
		Items []item   `json:"items,omitempty" jsonschema_extras:"minItems=1"`
		Empty struct{} `json:"empty"`
		skip  int
	}
	_ = input{}.skip
	want := `{"type":"object","properties":{
		"mode":{"type":"string","enum":["a","b"]},
		"-n":{"type":"boolean","description":"a flag"},
		"count":{"type":"integer","minimum":0,"default":3},
		"url":{"type":"string","format":"uri"},
		"items":{"type":"array","minItems":1,"items":{"type":"object","properties":{
			"name":{"type":"string","description":"the name","minLength":1}},
			"required":["name"],"additionalProperties":false}},
		"empty":{"type":"object","properties":{},"additionalProperties":false}},
		"required":["mode","empty"],"additionalProperties":false}`
	var got, w any
	if err := json.Unmarshal(SchemaOf[input](), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		t.Errorf("SchemaOf = %s", SchemaOf[input]())
	}
}

// TestSchemaOfBadTag: a misspelt keyword is a programming error, caught
// when the schema is first derived.
func TestSchemaOfBadTag(t *testing.T) {
	type input struct {
		X int `json:"x" jsonschema_extras:"minimun=1"`
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `unknown keyword "minimun"`) {
			t.Errorf("recover() = %v", r)
		}
	}()
	SchemaOf[input]()
}
