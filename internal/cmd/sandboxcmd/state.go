package sandboxcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/paygate/paygate-go/paygatetest"
)

// readFixtures reads the -fixtures file before the sandbox starts, so that
// a missing file stops the command before it serves. With -state, a state
// file that exists already holds the scenario (loaded at its first start,
// changed since by the tests): nil, nothing to load.
func readFixtures(path, stateFile string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	if stateFile != "" {
		if _, err := os.Stat(stateFile); err == nil {
			return nil, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-fixtures: %w", err)
	}
	return raw, nil
}

// loadFixtures loads the scenario read by readFixtures into srv and says
// so on stderr.
func loadFixtures(srv *paygatetest.Server, path string, raw []byte, stderr io.Writer) error {
	switch {
	case path == "":
		return nil
	case raw == nil:
		fmt.Fprintf(stderr, "fixtures %s not loaded: the state file holds the sandbox's state already\n", path)
		return nil
	}
	if _, err := srv.LoadFixtures(bytes.NewReader(raw)); err != nil {
		return fmt.Errorf("-fixtures %s: %w", path, err)
	}
	fmt.Fprintf(stderr, "fixtures %s loaded\n", path)
	return nil
}
