package paygatetest_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// Two sandboxes on one state file would each overwrite what the other
// wrote: the second is refused, by the file's name or a link to it, with
// an error naming the file and the holder, until the first stops.
func TestStateFile_ASecondSandboxOnTheFileIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, link := filepath.Join(dir, "state.json"), filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("state.json", link))
	first, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(path))
	require.NoError(t, err)
	for _, name := range []string{path, link} {
		second, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(name))
		if err == nil {
			second.Close()
		}
		require.ErrorIs(t, err, paygatetest.ErrStateFileInUse, name)
		assert.Contains(t, err.Error(), path, "the error names the file")
		assert.Contains(t, err.Error(), "process "+strconv.Itoa(os.Getpid()), "and its holder")
	}
	first.Close()
	again, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(link))
	require.NoError(t, err, "taken once the first stopped")
	again.Close()
}

// A state file reached through a symbolic link is written beside the file
// the link names and renamed over it: the link stays a link.
func TestStateFile_IsWrittenThroughASymbolicLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "data"), 0o700))
	target, link := filepath.Join(dir, "data", "state.json"), filepath.Join(dir, "state.json")
	require.NoError(t, os.Symlink(filepath.Join("data", "state.json"), link))
	for range 2 { // a new file through a dangling link, then one that exists
		s := restartable(t, link)
		s.charge(s.user("buyer"), paygatetest.CardApproved, nil)
		s.srv.Close()
		info, err := os.Lstat(link)
		require.NoError(t, err)
		assert.Equal(t, os.ModeSymlink, info.Mode().Type(), "the link stays a link")
		info, err = os.Lstat(target)
		require.NoError(t, err)
		assert.True(t, info.Mode().IsRegular(), "the state is in the file it names")
	}
	s := restartable(t, target)
	got, _, _ := s.view()
	assert.Equal(t, jsonNumber(2), got["total"], "both charges, read from the file itself")
}

// A sandbox killed while writing leaves its temporary file: the next one
// to start on the file removes those, and no other file.
func TestStateFile_StaleTemporaryFilesAreRemovedAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	stale := []string{".state.json.sandbox-tmp-1", ".state.json.sandbox-tmp-4294967295"}
	kept := []string{".state.json.sandbox-tmp-", ".state.json.sandbox-tmp-12x", ".state.json.12345",
		".other.json.sandbox-tmp-1", "state.json.sandbox-tmp-1", "notes.txt"}
	for _, name := range append(append([]string(nil), stale...), kept...) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("{"), 0o600))
	}
	s := restartable(t, path)
	for _, name := range stale {
		assert.NoFileExists(t, filepath.Join(dir, name))
	}
	for _, name := range kept {
		assert.FileExists(t, filepath.Join(dir, name))
	}
	s.srv.Close()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, append([]string{"state.json", "state.json.lock"}, kept...), names,
		"no temporary file left after a write")
}
