package pki

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// errEmptyPath guards writeFileAtomic against an unset path.
var errEmptyPath = errors.New("empty file path")

// writeFileAtomic replaces path with data: it writes a temporary file in the
// same directory and renames it over path, so a reader (or a crash) sees
// either the old content or the new, never half of it.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	if path == "" {
		return errEmptyPath
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
