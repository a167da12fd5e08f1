package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	modzip "golang.org/x/mod/zip"
)

// moduleFiles lists the files of the module in dir as git would archive
// them once committed: tracked, and untracked unless ignored (a build's
// binaries and profiles stay out). Files of nested modules are listed too;
// zip.Create leaves them out. A nested module without a LICENSE gets the
// repository's.
func moduleFiles(dir string) ([]modzip.File, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New("git ls-files in " + dir + ": " + strings.TrimSpace(stderr.String()) + ": " + err.Error())
	}
	var files []modzip.File
	haveLicense := false
	for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree, not yet in git
		}
		if err != nil {
			return nil, err
		}
		files = append(files, diskFile{name: name, path: p, info: info})
		haveLicense = haveLicense || name == "LICENSE"
	}
	if !haveLicense {
		if top, err := gitTop(dir); err == nil && top != mustAbs(dir) {
			p := filepath.Join(top, "LICENSE")
			if info, err := os.Lstat(p); err == nil {
				files = append(files, diskFile{name: "LICENSE", path: p, info: info})
			}
		}
	}
	return files, nil
}

func gitTop(dir string) (string, error) {
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(strings.TrimSpace(string(out)))
}

func mustAbs(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// diskFile is a file of the working tree, named by its path in the zip.
type diskFile struct {
	name string
	path string
	info os.FileInfo
}

func (f diskFile) Path() string                 { return f.name }
func (f diskFile) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

// zipFiles counts the files of a module zip.
func zipFiles(data []byte) (int, error) {
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return 0, err
	}
	return len(r.File), nil
}
