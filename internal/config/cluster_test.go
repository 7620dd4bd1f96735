package config

import (
	"slices"
	"strings"
	"testing"
)

func TestClusterMerge(t *testing.T) {
	l := mustLoad(t, `
[cluster]
url = "nats://a:4222, tls://b:4222"
credentials = "/etc/csa/user.creds"
`, `
[cluster]
default = "remote"
`)
	c := l.Config.Cluster
	if !c.Enabled() || c.Default != ClusterRemote || c.Credentials != "/etc/csa/user.creds" {
		t.Fatalf("cluster: %+v", c)
	}
	if got := c.URLs(); !slices.Equal(got, []string{"nats://a:4222", "tls://b:4222"}) {
		t.Errorf("URLs: %q", got)
	}
	for _, r := range []string{"git@host:org/r.git", "https://git.example/r.git", "file:///srv/r.git", "/srv/r.git"} {
		if got := mustLoad(t, "[cluster]\nremote = \""+r+"\"\n", "").Config.Cluster.Remote; got != r {
			t.Errorf("remote %q: %q", r, got)
		}
	}
	if d := mustLoad(t, "", "").Config.Cluster; d.Enabled() || d.Default != ClusterLocal {
		t.Errorf("default: %+v", d)
	}
}

// Each bad value is named by file, line and key.
func TestClusterValidation(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"[cluster]\nurl = \"http://a:4222\"", `:2:7: invalid value for "cluster.url": "http://a:4222" is not a nats:// or tls:// URL`},
		{"[cluster]\nurl = \" , \"", `"cluster.url": no server URL between the commas`},
		{"[cluster]\ndefault = \"remote\"", `"cluster.default": "remote" needs cluster.url`},
		{"[cluster]\nurl = \"nats://a:4222\"\ndefault = \"elsewhere\"", `:3:11: invalid value for "cluster.default": "elsewhere" is not one of local, remote`},
		{"[cluster]\ncredentials = \"user.creds\"", `"cluster.credentials": "user.creds" must be an absolute path`},
		{"[cluster]\ntls_cert = \"/c.pem\"", `"cluster.tls_key": tls_cert and tls_key go together`},
		{"[cluster]\nurls = \"nats://a:4222\"", `unknown key "cluster.urls"`},
		{"[cluster]\nurl = \"nats://a:4222\"\nremote = \"repo.git\"", `:3:10: invalid value for "cluster.remote": "repo.git" is not a git URL`},
		{"[cluster]\nremote = \"https://git example/r\"", `"cluster.remote": "https://git example/r" is not a git URL`},
	} {
		g, p := files(t, tt.doc, "")
		_, err := LoadFiles(g, p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.doc, err, tt.want)
		}
	}
}
