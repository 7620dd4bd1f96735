package review

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/review"
)

func parse(t *testing.T, args ...string) *Options {
	t.Helper()
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
	var got *Options
	cmd := NewCmd(f, func(_ context.Context, o *Options) error { got = o; return nil })
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestFlags(t *testing.T) {
	o := parse(t, "--files", "a.go,b.go", "c.go", "--reviewers", "3", "--consensus", "weighted")
	mode, _, err := o.mode()
	if err != nil || mode != review.ModeFiles || !reflect.DeepEqual(o.files(), []string{"a.go", "b.go", "c.go"}) {
		t.Fatalf("%s %v %v", mode, o.files(), err)
	}
	if o.Reviewers != 3 || !o.reviewersSet || o.Consensus != "weighted" {
		t.Fatalf("%+v", o)
	}
	want := []string{"--files", "a.go", "b.go", "c.go", "--reviewers", "3", "--consensus", "weighted"}
	if got := o.record(mode, "", 3, "weighted"); !reflect.DeepEqual(got, want) {
		t.Fatalf("record %v", got)
	}
	if o := parse(t); o.reviewersSet {
		t.Fatal("--reviewers set without being given")
	}
	if mode, _, _ := parse(t).mode(); mode != review.ModeDiff {
		t.Fatalf("default mode %s", mode)
	}
	if mode, ref, _ := parse(t, "--branch", "main").mode(); mode != review.ModeBranch || ref != "main" {
		t.Fatalf("branch: %s %s", mode, ref)
	}
	o = parse(t, "--session", "01ABC")
	if mode, ref, _ := o.mode(); mode != review.ModeSession || ref != "01ABC" {
		t.Fatalf("session: %s %s", mode, ref)
	}
	if got := o.record(review.ModeSession, "01ABC", 1, "majority"); !reflect.DeepEqual(got[:2], []string{"--session", "01ABC"}) {
		t.Fatalf("record %v", got)
	}
}

func TestModeErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--diff", "--branch", "main"}, "--diff, --branch cannot be combined"},
		{[]string{"--range", "a..b", "--files", "x"}, "--range, --files cannot be combined"},
		{[]string{"x.go"}, `unexpected argument "x.go"`},
		{[]string{"--session", "01ABC", "--diff"}, "--diff, --session cannot be combined"},
		{[]string{"--branch", "main", "--session", "01ABC"}, "--branch, --session cannot be combined"},
		{[]string{"--session", "01ABC", "x.go"}, `unexpected argument "x.go"`},
	} {
		_, _, err := parse(t, tc.args...).mode()
		if code, _ := cmdutil.Classify(err); code != "usage" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v", tc.args, err)
		}
	}
}
