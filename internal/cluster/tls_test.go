package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/config"
)

// [cluster] tls_ca, tls_cert and tls_key against a real nats-server that
// requires TLS and a client certificate: with all three csa connects and
// makes its streams; without the CA, or without a client certificate, it
// is refused with the reason.
func TestConnectTLS(t *testing.T) {
	bin, err := clustertest.Binary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ca, caKey := newCert(t, dir, "ca", nil, nil)
	newCert(t, dir, "server", ca, caKey)
	newCert(t, dir, "client", ca, caKey)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	srv := exec.Command(bin, "--addr", "127.0.0.1", "--port", strconv.Itoa(port), "--jetstream", "--store_dir", filepath.Join(dir, "js"),
		"--tlsverify", "--tlscert", filepath.Join(dir, "server.pem"), "--tlskey", filepath.Join(dir, "server-key.pem"),
		"--tlscacert", filepath.Join(dir, "ca.pem"))
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })

	good := config.ClusterConfig{URL: "tls://127.0.0.1:" + strconv.Itoa(port), TLSCA: filepath.Join(dir, "ca.pem"),
		TLSCert: filepath.Join(dir, "client.pem"), TLSKey: filepath.Join(dir, "client-key.pem")}
	var nc interface{ Close() }
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := Connect(good, "csa tls test")
		if err == nil {
			nc = c
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			_, err = Open(ctx, c)
			cancel()
			if err != nil {
				t.Fatalf("open over TLS: %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			t.Fatalf("connect over TLS: %v\nserver log:\n%s", err, b)
		}
		time.Sleep(50 * time.Millisecond) // the server is starting: retry interval
	}
	nc.Close()

	noCA := good
	noCA.TLSCA = ""
	if _, err := Connect(noCA, "csa tls test"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without tls_ca: %v, want a certificate error", err)
	}
	noCert := good
	noCert.TLSCert, noCert.TLSKey = "", ""
	if c, err := Connect(noCert, "csa tls test"); err == nil {
		c.Close()
		t.Error("without a client certificate: connected")
	}
}

// newCert writes NAME.pem and NAME-key.pem in dir: a CA when parent is
// nil, else a certificate for 127.0.0.1 signed by it (server and client
// use).
func newCert(t *testing.T, dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "csa test " + name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	signer, signerKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	} else {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+"-key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}
