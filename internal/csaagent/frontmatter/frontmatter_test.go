package frontmatter

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestSplitAndParse(t *testing.T) {
	fm, body, err := Split([]byte("\ufeff---\r\nname: x\r\nflag: true\r\ntools:\r\n  - Read\r\n  - 'Bash(git:*)'\r\n---\r\nbody\r\n"))
	if err != nil || body != "body\n" {
		t.Fatalf("Split: %q %v", body, err)
	}
	f, err := Parse(fm)
	if err != nil {
		t.Fatal(err)
	}
	if got := f["tools"].List(); !reflect.DeepEqual(got, []string{"Read", "Bash(git:*)"}) || !f["tools"].IsList() {
		t.Errorf("tools = %q", got)
	}
	if b, err := f["flag"].Bool("flag", false); err != nil || !b {
		t.Errorf("flag = %v %v", b, err)
	}
	if b, err := f["absent"].Bool("absent", true); err != nil || !b {
		t.Errorf("an absent bool is its default: %v %v", b, err)
	}
	if _, err := (Value{s: "yes"}).Bool("flag", false); err == nil || !strings.Contains(err.Error(), "true or false") {
		t.Errorf("Bool(yes) = %v", err)
	}
	if _, err := f["tools"].Scalar("tools"); err == nil {
		t.Error("Scalar of a list: no error")
	}
}

func TestSplitErrors(t *testing.T) {
	if _, body, err := Split([]byte("# just markdown\n")); !errors.Is(err, ErrNone) || body != "# just markdown\n" {
		t.Errorf("no front matter: %q %v", body, err)
	}
	if _, _, err := Split([]byte("---\nname: x\n")); err == nil || !strings.Contains(err.Error(), "not closed") {
		t.Errorf("unclosed: %v", err)
	}
	f, err := Parse("hooks:\n  PreToolUse:\n    - matcher: Bash\nname: x\n")
	if err != nil || f["name"].s != "x" {
		t.Errorf("a nested mapping is kept unread: %v %v", f, err)
	}
	if _, err := f["hooks"].Scalar("hooks"); err == nil || !strings.Contains(err.Error(), "mapping") {
		t.Errorf("Scalar of a mapping: %v", err)
	}
	if _, err := Parse("name x\n"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad line: %v", err)
	}
}
