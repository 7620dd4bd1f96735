package web

import "testing"

func TestTokensDiffer(t *testing.T) {
	a, b := NewToken(), NewToken()
	if len(a) != 48 || a == b {
		t.Fatalf("tokens %q %q", a, b)
	}
}
