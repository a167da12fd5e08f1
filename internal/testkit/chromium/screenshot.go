package chromium

import (
	"bytes"
	"errors"
	"flag"
	"os"
)

// update is the browser tests' -update-screenshots flag: the documentation's
// screenshots are rewritten only when it is given, so that running the
// tests leaves the working tree as it was.
var update = flag.Bool("update-screenshots", false, "rewrite the screenshots the documentation shows")

// pngSignature opens every PNG file.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// SaveScreenshot checks that png is a PNG image and, with
// -update-screenshots, writes it to path.
func SaveScreenshot(path string, png []byte) error {
	if !bytes.HasPrefix(png, pngSignature) {
		return errors.New("chromium: the screenshot is not a PNG image")
	}
	if !*update {
		return nil
	}
	return os.WriteFile(path, png, 0o644)
}
