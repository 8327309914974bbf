// Package fileutil writes files so that a reader, or a crash, never sees
// half of one: certificates, token files and kubeconfigs are written to a
// temporary file next to their final path and then moved into place.
package fileutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteTemp writes data with mode perm to a new temporary file in path's
// directory, synced to disk, and returns its name. The caller moves it into
// place (os.Rename, or os.Link to refuse an existing file) or removes it.
func WriteTemp(path string, data []byte, perm os.FileMode) (string, error) {
	if path == "" {
		return "", fmt.Errorf("write: empty file path")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tmp.Name(), nil
}

// WriteAtomic replaces path with data (mode perm) by renaming a finished
// temporary file over it.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := WriteTemp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
