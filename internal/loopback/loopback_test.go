package loopback

import "testing"

func TestCheckAddrAcceptsLoopbackOnly(t *testing.T) {
	for _, a := range []string{"127.0.0.1:0", "127.0.0.1:8080", "127.1.2.3:80", "[::1]:9000", "localhost:7000"} {
		if err := CheckAddr(a); err != nil {
			t.Errorf("CheckAddr(%q): %v", a, err)
		}
	}
	for _, a := range []string{"0.0.0.0:80", ":8080", "[::]:80", "192.168.1.2:80", "example.com:80", "127.0.0.1", "10.0.0.1:1"} {
		if CheckAddr(a) == nil {
			t.Errorf("CheckAddr(%q) accepted", a)
		}
	}
}
