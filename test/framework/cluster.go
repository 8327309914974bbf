package framework

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/client"
	"kplane/pkg/cluster"
)

// LocalCluster is a multi-process cluster (apiserver, scheduler,
// controller-manager when built, kubelets) started with pkg/cluster for one
// test, from binaries built by BuildBinaries.
type LocalCluster struct {
	*cluster.Cluster
	// Dir is the data dir; Home is a private $HOME for kubectl's caches.
	Dir, Home string
	// Output is everything the launcher printed: its messages and every
	// component's log lines with their [component] prefix.
	Output *SyncBuffer
}

// StartCluster starts a cluster with two worker nodes on a free port in
// t.TempDir(), after configure (which may be nil) has adjusted the options,
// and stops it when the test ends. If the test fails, the launcher's output
// is logged.
func StartCluster(t testing.TB, configure func(*cluster.Options)) *LocalCluster {
	t.Helper()
	opts := cluster.DefaultOptions()
	opts.DataDir, opts.Port, opts.BinDir = t.TempDir(), 0, BuildBinaries(t)
	if configure != nil {
		configure(&opts)
	}
	return StartClusterWith(t, opts)
}

// StartClusterWith starts a cluster with exactly opts (Out is replaced by
// the LocalCluster's Output buffer), for tests that restart a cluster on
// the same data dir.
func StartClusterWith(t testing.TB, opts cluster.Options) *LocalCluster {
	t.Helper()
	out := &SyncBuffer{}
	opts.Out = out
	if os.Getenv("KPLANE_TEST_LOGS") != "" {
		opts.Out = io.MultiWriter(out, os.Stderr)
	}
	c, err := cluster.Up(context.Background(), opts)
	if err != nil {
		t.Fatalf("start cluster: %v\nlauncher output:\n%s", err, out.String())
	}
	t.Cleanup(func() {
		c.Stop()
		if t.Failed() {
			t.Logf("launcher output:\n%s", out.String())
		}
	})
	home := filepath.Join(opts.DataDir, "home")
	_ = os.MkdirAll(home, 0o700)
	return &LocalCluster{Cluster: c, Dir: opts.DataDir, Home: home, Output: out}
}

// Client returns an API client with the admin's credentials.
func (c *LocalCluster) Client(t testing.TB) *client.Client {
	t.Helper()
	return NewClient(t, c.KubeconfigPath(), nil)
}

// Kubectl runs the real kubectl against the cluster; stdin may be empty.
func (c *LocalCluster) Kubectl(t testing.TB, stdin string, args ...string) KubectlResult {
	t.Helper()
	return KubectlWith(t, c.KubeconfigPath(), c.Home, stdin, args...)
}

// MustKubectl runs kubectl and fails the test if it exits non-zero.
func (c *LocalCluster) MustKubectl(t testing.TB, args ...string) string {
	t.Helper()
	r := c.Kubectl(t, "", args...)
	if r.Err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// KubectlWith runs the real kubectl with a kubeconfig and a private HOME
// (for its discovery cache); it skips the test when kubectl is missing.
func KubectlWith(t testing.TB, kubeconfigPath, home, stdin string, args ...string) KubectlResult {
	t.Helper()
	return RunKubectl(t, RequireKubectl(t), kubeconfigPath, home, stdin, args...)
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers and readers.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
