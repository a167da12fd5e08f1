package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

// published is one module written to the proxy directory.
type published struct {
	Path, Version string
	Sum           string // the zip's go.sum hash (h1:...)
	Files         int    // files in the zip
}

// publish writes the module in dir to the proxy directory out at version.
// Publishing a version again replaces it, as a developer re-running the
// release check expects; a real proxy never would.
func publish(out, dir, version string) (published, error) {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return published{}, fmt.Errorf("version %q is not a canonical semantic version such as v0.1.0", version)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return published{}, err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return published{}, fmt.Errorf("%s/go.mod names no module", dir)
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return published{}, err
	}
	escPath, err := module.EscapePath(path)
	if err != nil {
		return published{}, err
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return published{}, err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return published{}, err
	}

	files, err := moduleFiles(dir)
	if err != nil {
		return published{}, err
	}
	var z bytes.Buffer
	if err := zip.Create(&z, mv, files); err != nil {
		return published{}, err
	}
	zipPath := filepath.Join(vdir, escVersion+".zip")
	if err := os.WriteFile(zipPath, z.Bytes(), 0o644); err != nil {
		return published{}, err
	}
	sum, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		return published{}, err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return published{}, err
	}
	if err := os.WriteFile(filepath.Join(vdir, escVersion+".info"), info, 0o644); err != nil {
		return published{}, err
	}
	if err := os.WriteFile(filepath.Join(vdir, escVersion+".mod"), gomod, 0o644); err != nil {
		return published{}, err
	}
	if err := addToList(filepath.Join(vdir, "list"), version); err != nil {
		return published{}, err
	}
	n, err := zipFiles(z.Bytes())
	if err != nil {
		return published{}, err
	}
	return published{Path: path, Version: version, Sum: sum, Files: n}, nil
}

// addToList adds version to the proxy's list of the module's versions.
func addToList(list, version string) error {
	data, err := os.ReadFile(list)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	versions := strings.Fields(string(data))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	semver.Sort(versions)
	return os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
