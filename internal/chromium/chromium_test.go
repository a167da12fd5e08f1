package chromium

import "testing"

func TestPath_PrefersTheEnvironment(t *testing.T) {
	t.Setenv("CHROMIUM_PATH", "/opt/chromium/chrome")
	p, err := Path()
	if err != nil || p != "/opt/chromium/chrome" {
		t.Fatalf("Path() = %q, %v; want the CHROMIUM_PATH", p, err)
	}
}

func TestFlags_HeadlessInTheGivenProfileAndSize(t *testing.T) {
	f := Flags("/tmp/profile", 1280, 900)
	for name, want := range map[string]any{"headless": true, "no-sandbox": true, "user-data-dir": "/tmp/profile",
		"window-size": "1280,900", "disable-background-networking": true} {
		if f[name] != want {
			t.Errorf("flag %s = %v, want %v", name, f[name], want)
		}
	}
}
