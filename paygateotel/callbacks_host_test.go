package paygateotel

import (
	"net"
	"strconv"
	"testing"
)

func TestSplitHostPort(t *testing.T) {
	for _, c := range []struct {
		in   string
		host string
		port int
	}{
		{"shop.example", "shop.example", 0},
		{"shop.example:8443", "shop.example", 8443},
		{"127.0.0.1:80", "127.0.0.1", 80},
		{"[::1]:8080", "::1", 8080},
		{"[::1]", "::1", 0},
		{"shop.example:", "shop.example", 0},
		{"shop.example:http", "shop.example", 0},
		{"shop.example:70000", "shop.example", 0},
		{"", "", 0},
	} {
		host, port := splitHostPort(c.in)
		if host != c.host || port != c.port {
			t.Errorf("splitHostPort(%q) = %q, %d; want %q, %d", c.in, host, port, c.host, c.port)
		}
	}
}

// FuzzSplitHostPort: a Host header is the sender's to choose. Wherever
// net.SplitHostPort finds a numeric port, splitHostPort finds the same
// host and port.
func FuzzSplitHostPort(f *testing.F) {
	for _, s := range []string{"shop.example:8443", "[::1]:8080", "[::1]", "a:b:c", "[fe80::1%eth0]:443", ":80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, hostport string) {
		host, port := splitHostPort(hostport)
		if port < 0 || port > 65535 {
			t.Fatalf("splitHostPort(%q) port %d", hostport, port)
		}
		wantHost, wantPort, err := net.SplitHostPort(hostport)
		if err != nil {
			return
		}
		p, err := strconv.ParseUint(wantPort, 10, 16)
		if err != nil {
			return
		}
		if host != wantHost || port != int(p) {
			t.Fatalf("splitHostPort(%q) = %q, %d; net.SplitHostPort: %q, %s", hostport, host, port, wantHost, wantPort)
		}
	})
}
