package config

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestTemplateLoads(t *testing.T) {
	l := mustLoad(t, "", Template())
	if !reflect.DeepEqual(l.Config, Default()) {
		t.Errorf("template changes the defaults: %+v", l.Config)
	}
	// It changes nothing of a global file either.
	g := mustLoad(t, "max_recursion_depth = 2\n[tools.codex]\nmodel = \"m\"", Template())
	if g.Config.MaxRecursionDepth != 2 || g.Config.Tools["codex"].Model != "m" {
		t.Errorf("template overrides the global file: %+v", g.Config)
	}
	for _, line := range strings.Split(Template(), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "[") {
			t.Errorf("active setting in template: %q", line)
		}
	}
}

var setting = regexp.MustCompile(`(?m)^# ([a-z_-]+ = .*)$`)

// TestTemplateComplete uncomments every setting of the template and checks
// that the file still loads, gives the defaults, and sets every key.
func TestTemplateComplete(t *testing.T) {
	doc := setting.ReplaceAllString(Template(), "$1")
	l := mustLoad(t, "", doc)
	def := (&Loaded{Config: Default()}).Map()
	if got := l.Map(); !reflect.DeepEqual(got, def) {
		t.Errorf("uncommented template gives\n%v\nwant\n%v", got, def)
	}

	ix := buildIndex([]byte(doc))
	var walk func(prefix []string, m map[string]any)
	walk = func(prefix []string, m map[string]any) {
		for k, v := range m {
			key := append(prefix[:len(prefix):len(prefix)], k)
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(key, sub)
				continue
			}
			if _, ok := ix.find(joinKey(key)); !ok {
				t.Errorf("template lacks %q", joinKey(key))
			}
		}
	}
	walk(nil, def)
}
