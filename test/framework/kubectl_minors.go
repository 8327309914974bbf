package framework

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// KubectlMinor is one installed kubectl release, e.g. Minor 27 at
// /usr/local/lib/kubectl/kubectl.1.27.
type KubectlMinor struct {
	Minor int
	Path  string
}

// kubectlMinorName matches the versioned kubectls installed beside kubectl.
var kubectlMinorName = regexp.MustCompile(`^kubectl\.1\.([0-9]+)$`)

// InstalledKubectlMinors returns the kubectl.1.NN binaries found beside the
// kubectl on PATH — in its directory, and in the directory it links to —
// oldest first. Machines set up for kplane have kubectl.1.27 … kubectl.1.33
// there; .ci/run builds a second minor where they are missing.
func InstalledKubectlMinors(t testing.TB) []KubectlMinor {
	t.Helper()
	kubectl := RequireKubectl(t)
	dirs := []string{filepath.Dir(kubectl)}
	if resolved, err := filepath.EvalSymlinks(kubectl); err == nil && filepath.Dir(resolved) != dirs[0] {
		dirs = append(dirs, filepath.Dir(resolved))
	}
	var found []KubectlMinor
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("list %s: %v", dir, err)
		}
		for _, e := range entries {
			m := kubectlMinorName.FindStringSubmatch(e.Name())
			if m == nil {
				continue
			}
			minor, _ := strconv.Atoi(m[1])
			if slices.ContainsFunc(found, func(k KubectlMinor) bool { return k.Minor == minor }) {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if fi, err := os.Stat(path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
				continue
			}
			found = append(found, KubectlMinor{Minor: minor, Path: path})
		}
	}
	slices.SortFunc(found, func(a, b KubectlMinor) int { return a.Minor - b.Minor })
	return found
}

// OldestAndNewestKubectl returns the oldest and the newest installed
// kubectl minors (one when only one is installed), the pair that judges
// a behaviour across the supported range; it fails the test when none is.
func OldestAndNewestKubectl(t testing.TB) []KubectlMinor {
	t.Helper()
	minors := InstalledKubectlMinors(t)
	if len(minors) == 0 {
		t.Fatal("no versioned kubectl installed beside kubectl")
	}
	if len(minors) > 1 {
		minors = []KubectlMinor{minors[0], minors[len(minors)-1]}
	}
	return minors
}

// RunKubectl runs the kubectl binary at path with a kubeconfig and a
// private HOME (for its discovery and HTTP caches), and a minute to finish.
func RunKubectl(t testing.TB, path, kubeconfigPath, home, stdin string, args ...string) KubectlResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append([]string{"--kubeconfig", kubeconfigPath, "--cache-dir", filepath.Join(home, "cache")}, args...)
	cmd := exec.CommandContext(ctx, path, full...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG=")
	cmd.Stdin = bytes.NewReader([]byte(stdin))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return KubectlResult{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}
