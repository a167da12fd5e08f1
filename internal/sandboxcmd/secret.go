package sandboxcmd

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
)

// secretEnv is the environment variable the private key may come from.
const secretEnv = "PAYGATE_SECRET"

// key is the project's private key and where it came from.
type key struct {
	value  string
	origin string // for the start line: "from -secret", "from PAYGATE_SECRET", "made at random, in FILE..."
	file   string // the file a random key was written to; removed by discard
}

// privateKey is -secret when given, else $PAYGATE_SECRET, else a random
// key written to a new file (file, or one in the temporary directory)
// readable by its owner only: the key is never printed, since standard
// error is often a CI log that many read.
func privateKey(flagValue, file string, getenv func(string) string) (key, error) {
	switch {
	case flagValue != "" && file != "", flagValue == "" && getenv(secretEnv) != "" && file != "":
		return key{}, errors.New("-secret-file is where a random key is written: it goes without -secret and " + secretEnv)
	case flagValue != "":
		return key{value: flagValue, origin: "from -secret"}, nil
	case getenv(secretEnv) != "":
		return key{value: getenv(secretEnv), origin: "from " + secretEnv}, nil
	}
	b := make([]byte, 24)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	k := key{value: "sk_sandbox_" + hex.EncodeToString(b)}
	f, err := createKeyFile(file)
	if err != nil {
		return key{}, fmt.Errorf("writing the random private key: %w", err)
	}
	k.file = f.Name()
	_, err = f.WriteString(k.value)
	if err = errors.Join(err, f.Close()); err != nil {
		k.discard()
		return key{}, fmt.Errorf("writing the random private key: %w", err)
	}
	k.origin = "made at random, in " + k.file + " (readable by its owner only, removed at shutdown)"
	return k, nil
}

// createKeyFile creates a new file of mode 0600: name, which must not
// exist yet (so that no link planted there redirects the key), or one in
// the temporary directory.
func createKeyFile(name string) (*os.File, error) {
	if name == "" {
		return os.CreateTemp("", "paygate-sandbox-key-*")
	}
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// discard removes the file of a random key: the key dies with the server.
func (k key) discard() {
	if k.file != "" {
		os.Remove(k.file)
	}
}
