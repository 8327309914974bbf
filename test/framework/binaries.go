package framework

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binaries is the one build of ./cmd/... shared by every test of a test
// binary: building takes seconds even with a warm cache, so it is done once.
var binaries struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// BuildBinaries builds every command (`go build -o DIR/ ./cmd/...`) once
// per test binary run and returns DIR. The directory is private to this
// run, so tests never replace binaries another run is executing; call
// RemoveBinaries from TestMain to delete it afterwards.
func BuildBinaries(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	binaries.once.Do(func() {
		dir, err := os.MkdirTemp("", "kplane-bin-")
		if err != nil {
			binaries.err = err
			return
		}
		binaries.dir = dir
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/...")
		cmd.Dir = root
		binaries.out, binaries.err = cmd.CombinedOutput()
	})
	if binaries.err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", binaries.err, binaries.out)
	}
	return binaries.dir
}

// RemoveBinaries deletes what BuildBinaries built. TestMain calls it after
// m.Run.
func RemoveBinaries() {
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
}

// HasBinary reports whether dir holds the named binary (some components
// arrive in later issues).
func HasBinary(dir, name string) bool {
	fi, err := os.Stat(filepath.Join(dir, name))
	return err == nil && fi.Mode().IsRegular()
}
