package remoterun

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/runner"
)

// The hand-over keeps every byte of the request's strings: a prompt and
// a directory that are not UTF-8 come back as they went.
func TestWriteReadKeepsBytes(t *testing.T) {
	want := &Request{Tool: "codex", Prompt: "fix \xff\xfe here\n", Cwd: "/tmp/d\xe9j\xe0", ProjectRoot: "/tmp",
		Labels: map[string]string{"gpu": "a\x80"}, TimeoutMS: 1500, RunFlags: []string{"pids-max=5"}, Retries: 2}
	var b bytes.Buffer
	if err := Write(&b, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	got.RawBytes, want.RawBytes = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%#v\nwant\n%#v", got, want)
	}
	if _, err := Read(strings.NewReader("tool=codex")); err == nil {
		t.Error("Read took a request that is not JSON")
	}
}

func TestNewAppliesTheConfiguration(t *testing.T) {
	cfg := config.Default()
	cfg.Defaults.Tool = "codex"
	cfg.Defaults.Timeout = config.Duration(90 * time.Second)
	tc := cfg.Tools["codex"]
	tc.Model = "gpt-x"
	cfg.Tools["codex"] = tc
	cfg.MaxRecursionDepth = 2

	req, err := New(&cfg, Options{Prompt: "p", Cwd: "/w", ProjectRoot: "/w", Labels: []string{"a=1,b=2", "c=3"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if req.Tool != "codex" || req.Model != "gpt-x" || req.TimeoutMS != 90000 || req.Depth != 0 ||
		!reflect.DeepEqual(req.Labels, map[string]string{"a": "1", "b": "2", "c": "3"}) {
		t.Errorf("defaults: %+v", req)
	}
	none := time.Duration(0)
	req, err = New(&cfg, Options{Tool: "codex", Model: "m", Timeout: &none, ProjectRoot: "/w"},
		&runner.Parent{SessionID: "P", Tool: "claude-code", Depth: 1, ProjectRoot: "/parent"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Model != "m" || req.TimeoutMS != 0 || req.Depth != 2 || req.ParentID != "P" || req.ParentTool != "claude-code" ||
		req.ProjectRoot != "/parent" {
		t.Errorf("flags and parent: %+v", req)
	}

	var depth *runner.DepthError
	if _, err := New(&cfg, Options{}, &runner.Parent{SessionID: "P", Depth: 2}); !errors.As(err, &depth) || depth.Depth != 3 {
		t.Errorf("a run at depth 3 of 2: %v", err)
	}
	var inv *InvalidError
	for _, o := range []Options{
		{Tool: "auto"},
		{Tool: "codex", Retries: MaxRetries + 1},
		{Tool: "codex", Labels: []string{"gpu"}},
		{Tool: "codex", RunFlags: []string{"yolo=true"}},
	} {
		if _, err := New(&cfg, o, nil); !errors.As(err, &inv) {
			t.Errorf("%+v: %v, want an InvalidError", o, err)
		}
	}
}
