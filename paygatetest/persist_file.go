package paygatetest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrStateFileInUse reports a state file another sandbox holds: two
// sandboxes on one file would each overwrite what the other wrote. The
// error's text names the file and, when known, the holder's process id.
var ErrStateFileInUse = errors.New("paygatetest: state file in use by another sandbox")

// maxSymlinks is how many symbolic links resolveStatePath follows, as the
// kernel does, before it calls the path a loop.
const maxSymlinks = 40

// resolveStatePath follows the symbolic links of path (a dangling one
// too) to the file they name, so that the state file is written beside
// it and renamed over it, and the link stays a link. A path that names
// no file yet is returned as it is.
func resolveStatePath(path string) (string, error) {
	for range maxSymlinks {
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", fmt.Errorf("more than %d symbolic links", maxSymlinks)
}

// tempPrefix begins the name of the temporary files the state file at
// path is written to (a process number follows it): recognisable, so
// that a sandbox that starts removes those a killed one left, and nothing
// else.
func tempPrefix(path string) string {
	return "." + filepath.Base(path) + ".sandbox-tmp-"
}

// removeStaleTemps removes the temporary files of the state file at path
// that a sandbox killed while writing left: the caller holds the file's
// lock, so no other sandbox is writing one. Only names tempPrefix makes
// are removed: the prefix and digits.
func removeStaleTemps(path string) error {
	dir, prefix := filepath.Dir(path), tempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if _, err := strconv.ParseUint(rest, 10, 64); err != nil {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// lockPath is the lock file of the state file at path: beside it, since
// the state file itself is replaced at every write and a lock on it would
// go with the old one. It is left in place when the sandbox stops: a lock
// file removed could be opened by one sandbox and made again by another,
// each then holding a lock of its own.
func lockPath(path string) string { return path + ".lock" }

// lockStateFile takes the lock of the state file at path for this
// process, or reports ErrStateFileInUse naming the holder it wrote into
// the lock file. The lock goes with the process: a sandbox killed leaves
// none behind.
func lockStateFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(lockPath(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	held, err := tryLock(f)
	if err != nil || !held {
		holder, _ := os.ReadFile(lockPath(path))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", lockPath(path), err)
		}
		who := "another sandbox"
		if pid := strings.TrimSpace(string(holder)); pid != "" && len(pid) <= 20 {
			who = "the sandbox of process " + pid
		}
		return nil, fmt.Errorf("%w %s: %s holds it (lock %s): stop it, or give this one another state file",
			ErrStateFileInUse, path, who, lockPath(path))
	}
	// The holder's process id, for the message of the next one; a failure
	// to write it leaves the lock held all the same.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
