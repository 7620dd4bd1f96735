package egress

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"net"
	"path/filepath"
	"testing"
)

// The forwarder relays bytes exactly both ways: the unix-side server
// answers a large random upload with its digest followed by a large
// random download of its own, after the upload's end arrives as a
// half-close.
func TestForwarderRelaysBothWaysExactly(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "up.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	down := make([]byte, 5<<20+7)
	rand.Read(down)
	serverErr := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			serverErr <- err
			return
		}
		defer c.Close()
		h := sha256.New()
		if _, err := io.Copy(h, c); err != nil {
			serverErr <- err
			return
		}
		c.Write(h.Sum(nil))
		_, err = c.Write(down)
		serverErr <- err
	}()

	c, err := net.Dial("tcp", startForwarder(t, sock))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	up := make([]byte, 7<<20+3)
	rand.Read(up)
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(c)
		got <- b
	}()
	if _, err := c.Write(up); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	b := <-got
	if err := <-serverErr; err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(up)
	if len(b) != len(sum)+len(down) || !bytes.Equal(b[:len(sum)], sum[:]) || !bytes.Equal(b[len(sum):], down) {
		t.Fatalf("got %d bytes back, want the upload's digest and %d bytes", len(b), len(down))
	}
}

// A connection the socket cannot take is closed, not left hanging.
func TestForwarderClosesWhenSocketIsGone(t *testing.T) {
	c, err := net.Dial("tcp", startForwarder(t, filepath.Join(t.TempDir(), "absent.sock")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("read %d, %v", n, err)
	}
}
