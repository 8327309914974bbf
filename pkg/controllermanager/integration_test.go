package controllermanager_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/client"
	"kplane/pkg/controllermanager"
	"kplane/pkg/debug"
	"kplane/pkg/kubeconfig"
	"kplane/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 10 * time.Second

// logBuffer collects one manager's logs for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// writeKubeconfig writes the kubeconfig `ctl up` would give the
// controller-manager: the apiserver's URL and CA, and the token of
// system:kube-controller-manager.
func writeKubeconfig(t *testing.T, a *framework.APIServer) string {
	t.Helper()
	token, ok := a.Tokens().TokenFor(auth.ControllerManagerUserName)
	if !ok {
		t.Fatalf("the apiserver has no token for %s", auth.ControllerManagerUserName)
	}
	path := filepath.Join(t.TempDir(), "controller-manager.kubeconfig")
	if err := kubeconfig.New(kubeconfig.AdminClusterName, a.URL(), a.CACertPEM(), auth.ControllerManagerUserName, token).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// runningManager is a controller-manager running in the test's process.
type runningManager struct {
	*controllermanager.ControllerManager
	logs *logBuffer
	stop context.CancelFunc
	// done receives Run's result once.
	done chan error
}

// startManager runs a manager with the serviceaccount controller and a
// fast leader election, named identity, until the test ends.
func startManager(t *testing.T, kubeconfigPath, identity string) *runningManager {
	t.Helper()
	return startManagerWith(t, kubeconfigPath, identity, nil)
}

// startManagerWith is startManager with the options changed by configure
// (nil: none) before the manager is built.
func startManagerWith(t *testing.T, kubeconfigPath, identity string, configure func(*controllermanager.Options)) *runningManager {
	t.Helper()
	opts := controllermanager.DefaultOptions()
	opts.Kubeconfig = kubeconfigPath
	opts.Controllers = []string{"serviceaccount"}
	opts.BindAddress = "127.0.0.1:0"
	opts.LeaderElect = true
	opts.LeaseDuration, opts.RenewDeadline, opts.RetryPeriod = 4*time.Second, 2*time.Second, 200*time.Millisecond
	opts.Identity = identity
	// As ctl up runs it: each controller acts as its own ServiceAccount,
	// which the apiserver's bootstrap RBAC policy grants its rights.
	opts.UseServiceAccountCredentials = true
	if configure != nil {
		configure(&opts)
	}
	logs := &logBuffer{}
	var out io.Writer = logs
	if os.Getenv("KPLANE_TEST_LOGS") != "" {
		out = io.MultiWriter(logs, os.Stderr)
	}
	opts.Logger = slog.New(slog.NewTextHandler(out, nil))
	m, err := controllermanager.New(opts)
	if err != nil {
		t.Fatalf("controllermanager.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rm := &runningManager{ControllerManager: m, logs: logs, stop: cancel, done: make(chan error, 1)}
	go func() { rm.done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-rm.done:
		case <-time.After(waitTimeout):
			t.Errorf("manager %s did not stop", identity)
		}
	})
	return rm
}

// wait returns Run's result, failing the test if it does not come.
func (rm *runningManager) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-rm.done:
		rm.done <- err // for the cleanup
		return err
	case <-time.After(waitTimeout):
		t.Fatalf("manager %s did not return from Run", rm.Identity())
		return nil
	}
}

func leaseHolder(t *testing.T, c *client.Client) string {
	t.Helper()
	lease, err := c.Leases("kube-system").Get(context.Background(), "kube-controller-manager", client.GetOptions{})
	if err != nil {
		return "error: " + err.Error()
	}
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

func waitLeaseHolder(t *testing.T, c *client.Client, want string) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got := leaseHolder(t, c)
		return got == want, fmt.Sprintf("holderIdentity %q, want %q", got, want)
	})
}

// waitDefaultSA waits for namespace/default with a UID other than notUID.
func waitDefaultSA(t *testing.T, c *client.Client, namespace, notUID string) *api.ServiceAccount {
	t.Helper()
	var sa *api.ServiceAccount
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got, err := c.ServiceAccounts(namespace).Get(context.Background(), "default", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		sa = got
		return got.UID != notUID, "still the old default (uid " + got.UID + ")"
	})
	return sa
}

func createNamespace(t *testing.T, c *client.Client, name string) {
	t.Helper()
	if _, err := c.Namespaces().Create(context.Background(), &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// One manager with the credentials `ctl up` gives it: it takes the Lease,
// runs the serviceaccount controller, serves its metrics, announces its
// debug API under the name it was given even with the journal off
// (--debug-ring-size 0), and on shutdown releases the Lease.
func TestManagerRunsControllersAndServesMetrics(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	dataDir := t.TempDir()
	m := startManagerWith(t, writeKubeconfig(t, a), "manager-a", func(o *controllermanager.Options) {
		o.Journal = nil
		o.DebugComponent = "controller-manager-2"
		o.DebugEndpointFile = debug.EndpointFile(dataDir, o.DebugComponent)
	})

	waitLeaseHolder(t, c, "manager-a")
	createNamespace(t, c, "team-a")
	waitDefaultSA(t, c, "team-a", "")

	if code, body := httpGet(t, "http://"+m.Addr()+"/healthz"); code != http.StatusOK || body != "ok" {
		t.Fatalf("/healthz = %d %q, want 200 ok", code, body)
	}
	const metric = `kplane_controller_syncs_total{controller="serviceaccount",result="success"}`
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		code, body := httpGet(t, "http://"+m.Addr()+"/metrics")
		return code == http.StatusOK && strings.Contains(body, metric), fmt.Sprintf("/metrics answered %d without %s", code, metric)
	})
	endpoints, err := debug.ReadEndpoints(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(endpoints) != 1 || endpoints[0].Component != "controller-manager-2" || endpoints[0].URL != "http://"+m.Addr() || endpoints[0].Identity != "manager-a" {
		t.Errorf("endpoints = %+v, want one: controller-manager-2 at http://%s, identity manager-a", endpoints, m.Addr())
	}
	for _, want := range []string{"started leading", `msg="started controller" component=controller-manager controller=serviceaccount workers=1`, "address=http://" + m.Addr()} {
		if !strings.Contains(m.logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, m.logs.String())
		}
	}

	m.stop()
	if err := m.wait(t); err != nil {
		t.Fatalf("Run after cancel = %v, want nil", err)
	}
	if holder := leaseHolder(t, c); holder != "" {
		t.Fatalf("after a clean shutdown the Lease is held by %q, want it released", holder)
	}
}

// Two managers: one leads and runs the controllers, the other waits; when
// the leader stops, the standby takes over and the controllers work again.
func TestLeaderElectionFailover(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	path := writeKubeconfig(t, a)
	managers := map[string]*runningManager{
		"manager-a": startManager(t, path, "manager-a"),
		"manager-b": startManager(t, path, "manager-b"),
	}

	var leaderID string
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		leaderID = leaseHolder(t, c)
		return managers[leaderID] != nil, fmt.Sprintf("holderIdentity %q", leaderID)
	})
	standbyID := "manager-a"
	if leaderID == standbyID {
		standbyID = "manager-b"
	}
	leader, standby := managers[leaderID], managers[standbyID]
	createNamespace(t, c, "team-a")
	first := waitDefaultSA(t, c, "team-a", "")
	if strings.Contains(standby.logs.String(), "started leading") {
		t.Fatalf("standby %s started leading while %s holds the Lease:\n%s", standbyID, leaderID, standby.logs.String())
	}

	leader.stop()
	if err := leader.wait(t); err != nil {
		t.Fatalf("leader's Run after cancel = %v, want nil", err)
	}
	waitLeaseHolder(t, c, standbyID)
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		return strings.Contains(standby.logs.String(), "started leading"), "standby has not logged started leading"
	})
	if err := c.ServiceAccounts("team-a").Delete(context.Background(), "default", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDefaultSA(t, c, "team-a", first.UID)
}

// A leader that sees another holder on its Lease stops its controllers and
// Run returns an error, as upstream exits on "leaderelection lost".
func TestLostLeadershipEndsRun(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	m := startManager(t, writeKubeconfig(t, a), "manager-a")
	waitLeaseHolder(t, c, "manager-a")

	// Another candidate takes the Lease over (as after a network partition
	// long enough for the lease to expire).
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		lease, err := c.Leases("kube-system").Get(context.Background(), "kube-controller-manager", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		thief, now := "thief", api.MicroTime{Time: time.Now()}
		lease.Spec.HolderIdentity, lease.Spec.AcquireTime, lease.Spec.RenewTime = &thief, &now, &now
		if _, err := c.Leases("kube-system").Update(context.Background(), lease, client.UpdateOptions{}); err != nil {
			return false, "update lease: " + err.Error()
		}
		return true, ""
	})
	err := m.wait(t)
	if err == nil || !strings.Contains(err.Error(), "leader election lost") {
		t.Fatalf("Run = %v, want a leader election lost error", err)
	}
	if holder := leaseHolder(t, c); holder != "thief" {
		t.Fatalf("holderIdentity = %q, want the thief's (a manager that lost must not release another's Lease)", holder)
	}
}

// --trace-informers follows a key from the informer's handler into the
// controller's own workqueue: the deployment controller's queue and the
// garbage collector's attempt-to-delete queue both report their adds.
func TestTraceInformersShowsTheControllersQueues(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	m := startManagerWith(t, writeKubeconfig(t, a), "manager-trace", func(o *controllermanager.Options) {
		o.Controllers = []string{"deployment", "garbagecollector"}
		o.LeaderElect = false
		o.TraceInformers = true
	})
	ctx := context.Background()
	replicas := int32(1)
	labels := map[string]string{"app": "traced"}
	d := &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: "traced", Namespace: "default"},
		Spec: api.DeploymentSpec{Replicas: &replicas, Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}}},
	}
	if _, err := c.Deployments("default").Create(ctx, d, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const deploymentQueue = `msg="key enqueued" component=workqueue stage=enqueue key=default/traced queue=deployment`
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		return strings.Contains(m.logs.String(), deploymentQueue), "no trace line with " + deploymentQueue
	})
	// The ReplicaSet the deployment controller made must exist before the
	// Deployment goes, so that the garbage collector has a dependent to
	// delete; its queues hold objects by uid.
	var replicaSetUID string
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		list, err := c.ReplicaSets("default").List(ctx, client.ListOptions{LabelSelector: "app=traced"})
		if err != nil {
			return false, err.Error()
		}
		if len(list.Items) != 1 {
			return false, fmt.Sprintf("%d ReplicaSets", len(list.Items))
		}
		replicaSetUID = list.Items[0].UID
		return true, ""
	})
	if err := c.Deployments("default").Delete(ctx, "traced", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	gcQueue := "stage=enqueue key=" + replicaSetUID + " queue=garbagecollector_attempt_to_delete"
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		return strings.Contains(m.logs.String(), gcQueue), "no trace line with " + gcQueue
	})
}
