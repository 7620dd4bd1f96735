package egress

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// curlRun runs curl with no proxy variables of its own (only the flags
// choose the proxy): its exit code, standard output and error.
func curlRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	path, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed (.ci/run installs it from Debian)")
		}
		t.Skip("curl is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := proc.Capture(ctx, proc.Spec{Path: path, Args: append([]string{"-sS", "--max-time", "60"}, args...),
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}}, time.Second)
	if err != nil {
		t.Fatalf("curl %q: %v", args, err)
	}
	return out.ExitCode, string(out.Stdout), out.Stderr
}

// curl, a real client, through the proxy on 127.0.0.1 as csa run serves
// it, as HTTP proxy, CONNECT tunnel and SOCKS5 with remote name
// resolution (socks5h).
func TestCurlThroughProxy(t *testing.T) {
	_, port := upstream(t)
	dns := newFakeDNS("api.example.test", "127.0.0.1", "other.test", "127.0.0.1")
	ds, fwd := startProxy(t, dns, "api.example.test", "127.0.0.1:"+port)
	target := "http://api.example.test:" + port + "/curl"
	want := `upstream saw GET api.example.test:` + port + ` /curl ""`

	for _, c := range []struct {
		proto string
		args  []string
	}{
		{ProtoHTTP, []string{"-x", "http://" + fwd, target}},
		{ProtoConnect, []string{"-p", "-x", "http://" + fwd, target}},
		{ProtoSOCKS5, []string{"-x", "socks5h://" + fwd, target}},
	} {
		code, out, stderr := curlRun(t, c.args...)
		if code != 0 || out != want {
			t.Fatalf("curl %q: exit %d, %q, %s", c.args, code, out, stderr)
		}
		if d := ds.next(t); !d.Allowed || d.Proto != c.proto || d.Host != "api.example.test" {
			t.Fatalf("decision %+v, want %s allowed", d, c.proto)
		}
	}

	denied := "http://other.test:" + port + "/"
	code, out, _ := curlRun(t, "-x", "http://"+fwd, "-w", "\n%{http_code}", denied)
	if code != 0 || out != "csa sandbox: host other.test:"+port+" is not in the allow list (sandbox.allow_hosts)\n\n403" {
		t.Fatalf("plain refused: exit %d %q", code, out)
	}
	checkRefused(t, ds.next(t), ProtoHTTP, "other.test")
	code, _, stderr := curlRun(t, "-p", "-x", "http://"+fwd, denied)
	if code == 0 || !strings.Contains(stderr, "403") {
		t.Fatalf("CONNECT refused: exit %d %s", code, stderr)
	}
	checkRefused(t, ds.next(t), ProtoConnect, "other.test")
	code, _, stderr = curlRun(t, "-x", "socks5h://"+fwd, denied)
	if code == 0 {
		t.Fatalf("SOCKS5 refused: exit 0 %s", stderr)
	}
	checkRefused(t, ds.next(t), ProtoSOCKS5, "other.test")
	if q := dns.lookups(); strings.Contains(strings.Join(q, " "), "other.test") {
		t.Fatalf("a refused name was looked up: %q", q)
	}
}
