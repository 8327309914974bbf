package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
	"time"

	"kplane/pkg/client"
)

// profileDirEnv names the environment variable that, when set to a
// directory, makes W6 write a CPU profile of the apiserver taken over the
// timed part of each run (apiserver-<n>.pprof, read with `go tool pprof`).
// It is off by default: a profile costs the apiserver a little CPU.
const profileDirEnv = "KPLANE_BENCH_PROFILE_DIR"

// profileAPIServer starts, when profileDirEnv is set, a CPU profile of the
// apiserver behind c over the next d (from its /debug/pprof/profile, as
// kube-apiserver serves it), and returns a function that waits for it and
// writes it to the directory. Failures are logged, never fatal: the
// profile is a diagnostic.
func profileAPIServer(b *testing.B, c *client.Client, d time.Duration) (wait func()) {
	dir := os.Getenv(profileDirEnv)
	if dir == "" {
		return func() {}
	}
	done := make(chan struct{})
	var body []byte
	var err error
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
		defer cancel()
		_, body, err = c.Do(ctx, "GET", fmt.Sprintf("/debug/pprof/profile?seconds=%d", int(d.Seconds())), nil, nil)
	}()
	return func() {
		<-done
		if err != nil {
			b.Logf("apiserver CPU profile: %v", err)
			return
		}
		path := filepath.Join(dir, fmt.Sprintf("apiserver-%d.pprof", time.Now().UnixNano()))
		if err := os.WriteFile(path, body, 0o644); err != nil {
			b.Logf("apiserver CPU profile: %v", err)
			return
		}
		b.Logf("apiserver CPU profile of the timed part: %s", path)
	}
}

// profileThisProcess starts, when profileDirEnv is set, a CPU profile of
// the benchmark's own process (for the in-process benchmarks: the
// apiserver, the component under test and the benchmark's clients
// together), and returns the function that stops it and writes
// <name>-<n>.pprof to the directory.
func profileThisProcess(b *testing.B, name string) (stop func()) {
	dir := os.Getenv(profileDirEnv)
	if dir == "" {
		return func() {}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, time.Now().UnixNano()))
	f, err := os.Create(path)
	if err != nil {
		b.Logf("CPU profile: %v", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Logf("CPU profile: %v", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Logf("CPU profile: %v", err)
			return
		}
		b.Logf("CPU profile of the timed part: %s", path)
	}
}
