package claudesettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadPrecedence(t *testing.T) {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	files := map[string]string{
		filepath.Join(home, ".claude/settings.json"):          `{"outputStyle": "user", "statusLine": {"type": "command", "command": "u"}}`,
		filepath.Join(project, ".claude/settings.json"):       `{"outputStyle": "project"}`,
		filepath.Join(project, ".claude/settings.local.json"): `{"outputStyle": "local", "statusLine": {"type": "command", "command": "l", "padding": 2}}`,
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Read(Sources{Home: home, Project: project, Managed: filepath.Join(dir, "none.json")})
	if err != nil || s.OutputStyle != "local" || s.StatusLine == nil || s.StatusLine.Command != "l" || s.StatusLine.Padding != 2 {
		t.Fatalf("%+v %v", s, err)
	}
	s, err = Read(Sources{Home: home, Project: project, Flag: `{"outputStyle": "flag"}`})
	if err != nil || s.OutputStyle != "flag" {
		t.Fatalf("--settings did not win over the local file: %+v %v", s, err)
	}
	managed := filepath.Join(dir, "managed.json")
	if err := os.WriteFile(managed, []byte(`{"outputStyle": "policy"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Read(Sources{Home: home, Project: project, Flag: `{"outputStyle": "flag"}`, Managed: managed})
	if err != nil || s.OutputStyle != "policy" {
		t.Fatalf("the managed file did not win: %+v %v", s, err)
	}
	if err := os.WriteFile(managed, []byte(`{broken`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Read(Sources{Home: home, Managed: managed})
	if err == nil || !strings.Contains(err.Error(), managed) || s.OutputStyle != "user" {
		t.Fatalf("a broken file: %+v %v", s, err)
	}
}
