package ecosystem

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestMain runs the judges, then deletes the binaries built for the run.
// Each manager logs into its own buffer (startManager); controller-runtime's
// global logger, used by the caches the tests build outside a manager, is
// given a logger that drops everything, or it prints a warning and a stack.
func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	code := m.Run()
	if kplaneBinaries.built != "" {
		_ = os.RemoveAll(kplaneBinaries.built)
	}
	os.Exit(code)
}

// kplaneBinaries is the one set of kplane binaries every test of this test
// binary starts clusters from: the directory KPLANE_BIN_DIR names (`make
// test-ecosystem` passes the bin/ it has just built), or a private build of
// kplane's ./cmd/... made once per run.
var kplaneBinaries struct {
	once  sync.Once
	dir   string
	built string // a directory this run created, removed by TestMain
	err   error
	out   []byte
}

// binDir returns the directory of kplane's binaries, building them first when
// KPLANE_BIN_DIR is unset. framework.BuildBinaries cannot do it here: it
// looks for the nearest go.mod, which is this module's, not kplane's.
func binDir(t testing.TB) string {
	t.Helper()
	kplaneBinaries.once.Do(func() {
		if dir := os.Getenv("KPLANE_BIN_DIR"); dir != "" {
			kplaneBinaries.dir = dir
			return
		}
		dir, err := os.MkdirTemp("", "kplane-ecosystem-bin-")
		if err != nil {
			kplaneBinaries.err = err
			return
		}
		kplaneBinaries.dir, kplaneBinaries.built = dir, dir
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/...")
		cmd.Dir = kplaneRoot(t)
		kplaneBinaries.out, kplaneBinaries.err = cmd.CombinedOutput()
	})
	if kplaneBinaries.err != nil {
		t.Fatalf("build kplane's binaries: %v\n%s", kplaneBinaries.err, kplaneBinaries.out)
	}
	if !framework.HasBinary(kplaneBinaries.dir, "ctl") {
		t.Fatalf("KPLANE_BIN_DIR=%s holds no ctl binary: run `make build` first", kplaneBinaries.dir)
	}
	return kplaneBinaries.dir
}

// kplaneRoot finds the directory of the go.mod that declares module kplane,
// walking up from this test's directory.
func kplaneRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("working directory: %v", err)
	}
	for {
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(mod), "module kplane\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of module kplane above the test directory")
		}
		dir = parent
	}
}

// startCluster starts a `ctl up` cluster (the apiserver, the scheduler, the
// controller-manager and two worker nodes' kubelets, as separate processes)
// in a temp data dir on a free port, and stops it when the test ends.
func startCluster(t testing.TB) *framework.LocalCluster {
	t.Helper()
	opts := cluster.DefaultOptions()
	opts.DataDir, opts.Port, opts.BinDir = t.TempDir(), 0, binDir(t)
	return framework.StartClusterWith(t, opts)
}

// restConfig returns client-go's configuration for the cluster's admin
// kubeconfig, read by client-go's own loader as any controller would.
func restConfig(t testing.TB, c *framework.LocalCluster) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.KubeconfigPath())
	if err != nil {
		t.Fatalf("load kubeconfig %s with client-go: %v", c.KubeconfigPath(), err)
	}
	return cfg
}
