package sandboxcmd

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// secretEnv is the environment variable the private key may come from.
const secretEnv = "PAYGATE_SECRET"

// maxKeyFile bounds what is read of a key file: a key is one short line.
const maxKeyFile = 4096

// key is the project's private key and where it came from.
type key struct {
	value  string
	origin string // for the start line: "from -secret", "read from FILE", "made at random, in FILE..."
	source string // for the answer to a wrong signature: "-secret", "PAYGATE_SECRET", "the file FILE"
	file   string // a random key's file that dies with the server; removed by discard
}

// privateKey is -secret when given, else $PAYGATE_SECRET, else the key in
// a key file: file (-secret-file), else beside the state file (stateFile +
// ".key"), else a new one in the temporary directory. A key file that
// exists is read again, so that clients keep working across restarts (and
// after a kill, which leaves it behind); one that does not is made with a
// random key, readable by its owner only. Only the temporary one is
// removed at shutdown. The key is never printed, since standard error is
// often a CI log that many read; the start line says where it is.
func privateKey(flagValue, file, stateFile string, getenv func(string) string) (key, error) {
	switch {
	case flagValue != "" && file != "", flagValue == "" && getenv(secretEnv) != "" && file != "":
		return key{}, errors.New("-secret-file is where the private key is kept when none is given: it goes without -secret and " + secretEnv)
	case flagValue != "":
		return key{value: flagValue, origin: "from -secret", source: "-secret"}, nil
	case getenv(secretEnv) != "":
		return key{value: getenv(secretEnv), origin: "from " + secretEnv, source: secretEnv}, nil
	}
	kept := file != "" || stateFile != ""
	if file == "" && stateFile != "" {
		file = stateFile + ".key"
	}
	if file != "" {
		if value, err := readKeyFile(file); err == nil {
			return key{value: value, origin: "read from " + file, source: "the file " + file}, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return key{}, err
		}
	}
	return randomKey(file, kept)
}

// randomKey writes a new random key to a new file of mode 0600: file, which
// must not exist yet (so that no link planted there redirects the key), or
// one in the temporary directory. Unless kept, the file dies with the
// server.
func randomKey(file string, kept bool) (key, error) {
	b := make([]byte, 24)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	k := key{value: "sk_sandbox_" + hex.EncodeToString(b)}
	f, err := createKeyFile(file)
	if err != nil {
		return key{}, fmt.Errorf("writing the random private key: %w", err)
	}
	_, err = f.WriteString(k.value)
	if err = errors.Join(err, f.Close()); err != nil {
		os.Remove(f.Name())
		return key{}, fmt.Errorf("writing the random private key: %w", err)
	}
	k.source = "the file " + f.Name()
	if kept {
		k.origin = "made at random, in " + f.Name() + " (readable by its owner only, read again at the next start)"
		return k, nil
	}
	k.file = f.Name()
	k.origin = "made at random, in " + k.file + " (readable by its owner only, removed at shutdown)"
	return k, nil
}

// readKeyFile reads the key in file, refusing a file that is not a regular
// one (a link could point the key anywhere), that others may read or
// write, or that holds no key.
func readKeyFile(file string) (string, error) {
	info, err := os.Lstat(file)
	if err != nil {
		return "", err
	}
	switch {
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("private key file %s is not a regular file: remove it, or name another with -secret-file", file)
	case info.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf("private key file %s may be read or written by others (mode %v): chmod 600 %s, or remove it for a new key", file, info.Mode().Perm(), file)
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("reading the private key: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return "", fmt.Errorf("reading the private key: %w", err)
	}
	value := strings.TrimSpace(string(b))
	switch {
	case value == "":
		return "", fmt.Errorf("private key file %s is empty: remove it for a new key", file)
	case len(b) > maxKeyFile || strings.ContainsAny(value, "\r\n"):
		return "", fmt.Errorf("private key file %s holds more than one line: it is not a key file", file)
	}
	return value, nil
}

// createKeyFile creates a new file of mode 0600: name, which must not
// exist yet, or one in the temporary directory.
func createKeyFile(name string) (*os.File, error) {
	if name == "" {
		return os.CreateTemp("", "paygate-sandbox-key-*")
	}
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// discard removes the file of a random key that dies with the server.
func (k key) discard() {
	if k.file != "" {
		os.Remove(k.file)
	}
}
