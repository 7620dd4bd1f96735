package tools

import (
	"encoding/json"
	"testing"
)

func TestBashReadOnly(t *testing.T) {
	tests := map[string]bool{
		"ls -la":                        true,
		"cat a.go | grep foo | wc -l":   true,
		"git status && git diff HEAD~1": true,
		"git log --oneline -5":          true,
		"find . -name '*.go'":           true,
		"rg -n TODO internal":           true,
		"cd sub && ls":                  true,
		"":                              false,
		"rm -rf x":                      false,
		"ls > out":                      false,
		"cat a >> b":                    false,
		"echo $(rm x)":                  false,
		"echo `rm x`":                   false,
		"ls; rm x":                      false,
		"ls && touch x":                 false,
		"cat x | tee y":                 false,
		"sleep 1 &":                     false,
		"find . -delete":                false,
		"find . -exec rm {} ;":          false,
		"sort -o out in":                false,
		"sort --output=out in":          false,
		"git commit -m x":               false,
		"git -C /tmp status":            false,
		"git diff --output=x":           false,
		"rg --pre ./script x":           false,
		"FOO=1 ls":                      false,
		"ls\nrm x":                      false,
		"npm test":                      false,
	}
	b := NewBash()
	for cmd, want := range tests {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if got := b.ReadOnly(in); got != want {
			t.Errorf("ReadOnly(%q) = %v, want %v", cmd, got, want)
		}
		if got := b.ConcurrencySafe(in); got != want {
			t.Errorf("ConcurrencySafe(%q) = %v, want %v", cmd, got, want)
		}
	}
}
