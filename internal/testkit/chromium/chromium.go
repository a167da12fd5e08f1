// Package chromium finds and configures the headless Chromium that the
// repository's browser tests drive (examples/checkout and
// paygatetest/dashboardtest, each a module of its own with chromedp). It
// has no dependencies, so the SDK's module gains none.
package chromium

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
)

// Path returns the browser to drive: $CHROMIUM_PATH, else chromium on the
// PATH, else Debian's /usr/bin/chromium. Without any, the error says how
// to install it: browser tests fail rather than skip.
func Path() (string, error) {
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		return "", errors.New("chromium is not installed: run bash .ci/install-chromium (Debian's chromium package) or set CHROMIUM_PATH")
	}
	return "/usr/bin/chromium", nil
}

// Flags are the command-line switches of a test browser, for
// chromedp.Flag: headless, no sandbox (CI runs as root in containers), no
// GPU, no first-run or default-browser prompts, a profile in userDataDir,
// a window of width x height, and nothing that reaches the network by
// itself or needs a large /dev/shm.
func Flags(userDataDir string, width, height int) map[string]any {
	return map[string]any{
		"headless":                      true,
		"hide-scrollbars":               true,
		"mute-audio":                    true,
		"no-sandbox":                    true,
		"disable-gpu":                   true,
		"no-first-run":                  true,
		"no-default-browser-check":      true,
		"user-data-dir":                 userDataDir,
		"window-size":                   strconv.Itoa(width) + "," + strconv.Itoa(height),
		"disable-background-networking": true,
		"disable-component-update":      true,
		"disable-sync":                  true,
		"disable-dev-shm-usage":         true,
	}
}
