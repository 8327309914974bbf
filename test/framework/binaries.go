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

// BuildCommands builds only the named commands (`go build -o DIR/
// ./cmd/NAME…`) into a temporary directory of t's and returns it: for a
// test that runs a few binaries, where linking all of ./cmd/... as
// BuildBinaries does would cost more than the test itself.
func BuildCommands(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, name := range names {
		args = append(args, "./cmd/"+name)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, out)
	}
	return dir
}
