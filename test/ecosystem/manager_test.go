package ecosystem

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"kplane/test/framework"
)

// Leader election timings of the judges' managers: controller-runtime's
// defaults (15 s lease, 10 s renew deadline, 2 s retry), but a 1 s retry so
// a standby notices a released Lease quickly. The renew deadline stays long:
// on a loaded CI machine a short one makes the leader give up its lease.
var (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 1 * time.Second
)

// runningManager is a controller-runtime manager started by a test.
type runningManager struct {
	ctrl.Manager
	// stop cancels the manager's context and waits for Start to return;
	// the manager releases its Lease on the way out.
	stop func()
	// logs holds everything the manager logged, printed if the test fails.
	logs *framework.SyncBuffer
}

// managerOptions are the options a kubebuilder scaffold's main.go passes,
// for a manager that runs outside the cluster: leader election on a Lease in
// namespace default, no metrics or health endpoints (nothing listens), and
// a logger into logs.
func managerOptions(scheme *runtime.Scheme, leaseName string, logger logr.Logger) ctrl.Options {
	skipNameValidation := true // two managers of one test binary run the same controller
	return ctrl.Options{
		Scheme:                        scheme,
		Logger:                        logger,
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		LeaderElection:                true,
		LeaderElectionID:              leaseName,
		LeaderElectionNamespace:       "default",
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &leaseDuration,
		RenewDeadline:                 &renewDeadline,
		RetryPeriod:                   &retryPeriod,
		Controller:                    config.Controller{SkipNameValidation: &skipNameValidation},
	}
}

// startManager builds a manager named name with setup's controllers and
// starts it; the test's cleanup stops it (before the cluster stops).
func startManager(t *testing.T, cfg *rest.Config, name string, scheme *runtime.Scheme, leaseName string,
	setup func(ctrl.Manager) error) *runningManager {
	t.Helper()
	logs := &framework.SyncBuffer{}
	logger := funcr.New(func(prefix, args string) { fmt.Fprintf(logs, "%s %s\n", prefix, args) },
		funcr.Options{Verbosity: 1}).WithName(name)
	mgr, err := ctrl.NewManager(cfg, managerOptions(scheme, leaseName, logger))
	if err != nil {
		t.Fatalf("new manager %s: %v", name, err)
	}
	if err := setup(mgr); err != nil {
		t.Fatalf("set up %s's controllers: %v", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var stopped bool
	m := &runningManager{Manager: mgr, logs: logs}
	m.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("manager %s: %v", name, err)
		}
	}
	t.Cleanup(func() {
		m.stop()
		if t.Failed() {
			t.Logf("manager %s logged:\n%s", name, logs.String())
		}
	})
	return m
}

// newAppScheme is client-go's scheme of built-in kinds, as the scaffold
// registers it.
func newAppScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatalf("add client-go's kinds to the scheme: %v", err)
	}
	return scheme
}

// setupAppController registers the app reconciler with mgr.
func setupAppController(mgr ctrl.Manager) error {
	r := &appReconciler{Client: mgr.GetClient(), recorder: mgr.GetEventRecorder("app-controller")}
	return r.setupWithManager(mgr)
}

// waitElected waits until m leads, or fails the test after timeout.
func waitElected(t *testing.T, m *runningManager, timeout time.Duration) {
	t.Helper()
	select {
	case <-m.Elected():
	case <-time.After(timeout):
		t.Fatalf("manager not elected leader after %v; it logged:\n%s", timeout, m.logs.String())
	}
}

// directClient is an uncached controller-runtime client, for the test's own
// reads and writes: it sees the apiserver, not an informer's cache.
func directClient(t testing.TB, cfg *rest.Config, scheme *runtime.Scheme) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	return c
}
