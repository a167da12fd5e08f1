package chromium

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

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

func TestSaveScreenshot_WritesOnlyWhenAsked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shot.png")
	png := append([]byte("\x89PNG\r\n\x1a\n"), "rest"...)

	require.NoError(t, SaveScreenshot(path, png))
	_, err := os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "without -update-screenshots nothing is written")

	*update = true
	t.Cleanup(func() { *update = false })
	require.NoError(t, SaveScreenshot(path, png))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, png, got)

	require.Error(t, SaveScreenshot(path, []byte("<html>")), "a page that is not an image is refused")
}
