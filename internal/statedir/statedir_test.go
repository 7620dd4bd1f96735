package statedir

import (
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"CSA_STATE_DIR": "/s", "XDG_STATE_HOME": "/x", "HOME": "/h"}, "/s"},
		{map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/csa"},
		{map[string]string{"HOME": "/h"}, filepath.Join("/h", ".local", "state", "csa")},
	} {
		if got := Dir(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("Dir(%v) = %s, want %s", c.env, got, c.want)
		}
	}
}
