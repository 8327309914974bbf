package auth

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeTemp writes data to a new 0600 file next to path and returns its
// name. The caller moves it into place (rename or link) or removes it.
func writeTemp(path string, data []byte) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp already uses 0600; the token file holds secrets, so say so.
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o600)
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

// writeFileAtomic replaces path with data (mode 0600) by renaming a finished
// temporary file over it, so a reader never sees a half-written file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
