package cleartext

import (
	"net/url"
	"testing"
)

func TestExposed(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		"http://gateway.example.com": true, "http://10.0.0.7:8080": true, "http://sandbox:8080": true,
		"http://localhost.example.com": true, "http://127.0.0.1.example.com": true,
		"http://127.0.0.1:8080": false, "http://127.0.0.2": false, "http://localhost:8080": false,
		"http://LOCALHOST": false, "http://sandbox.localhost:8080": false, "http://[::1]:8080": false,
		"https://gateway.example.com": false, "https://10.0.0.7": false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := Exposed(u); got != want {
			t.Errorf("Exposed(%s) = %v, want %v", raw, got, want)
		}
	}
}
