package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// TestSchemasDerived checks every tool's input schema, now derived from
// its input type, against the schema the model was shown when they were
// written by hand (testdata/schema, kept from then): the same JSON value,
// so the prompt did not change. Only an empty "required" may be left out
// (JSON Schema's default). After a deliberate change to an input, rewrite
// the golden file with the new schema and say why in the commit.
func TestSchemasDerived(t *testing.T) {
	all := All()
	files, _ := filepath.Glob("testdata/schema/*.json")
	if len(files) != len(all) {
		t.Errorf("%d golden schemas for %d tools", len(files), len(all))
	}
	for _, tl := range append(all, NewTask([]tool.SubagentType{{Name: "X", Description: "y"}})) {
		golden, err := os.ReadFile(filepath.Join("testdata/schema", tl.Name()+".json"))
		if err != nil {
			t.Errorf("%s: %v", tl.Name(), err)
			continue
		}
		if got, want := jsonValue(t, tl.Schema()), jsonValue(t, golden); !reflect.DeepEqual(got, want) {
			var b bytes.Buffer
			json.Indent(&b, tl.Schema(), "", "  ")
			t.Errorf("%s: the derived schema differs from testdata/schema/%s.json:\n%s", tl.Name(), tl.Name(), b.String())
		}
	}
}

// jsonValue decodes a schema, dropping empty "required" lists.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	var drop func(any)
	drop = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["required"].([]any); ok && len(r) == 0 {
				delete(v, "required")
			}
			for _, x := range v {
				drop(x)
			}
		case []any:
			for _, x := range v {
				drop(x)
			}
		}
	}
	drop(v)
	return v
}
