//go:build chaos

package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/yamljson"
	"kplane/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

const (
	namespace       = "chaos"
	deploymentName  = "web"
	statefulSetName = "db"
	replicas        = 50
)

// Each wait is bounded, so a run that cannot finish fails with what it
// last saw instead of hanging; the bounds leave room for a busy machine
// and for controller-manager failovers, which wait out a 15 s Lease.
const (
	settleTimeout  = 3 * time.Minute
	rolloutTimeout = 8 * time.Minute
)

// killInterval is the pause between kills: "every few seconds", drawn
// from 3 to 6 s so kills do not fall into step with the controllers'
// periods.
func killInterval() time.Duration { return 3*time.Second + rand.N(3*time.Second) }

// strategy is one rolling-update configuration a run uses.
type strategy struct {
	maxSurge, maxUnavailable string
	// minReadySeconds slows the rollout down so that it lasts through
	// several kills: 25%/25% replaces 50 pods in about five steps, which
	// with simulated containers would otherwise take a few seconds; 1/0
	// takes fifty steps anyway, each stalled by every leader killed, so
	// it gets none (available is then Ready).
	minReadySeconds int
}

// strategies alternate between runs (CHAOS_RUN, set by `make chaos`):
// upstream's default 25%/25% (13 extra, 12 missing at most of 50), and the
// strictest 1/0 (one extra pod, none missing).
var strategies = []strategy{{"25%", "25%", 5}, {"1", "0", 0}}

// TestChaosRollout rolls a 50-replica Deployment out and scales a
// StatefulSet up and down while components die by SIGKILL; see the package
// doc and docs/chaos.md.
func TestChaosRollout(t *testing.T) {
	start := time.Now()
	run := 1
	if s := os.Getenv("CHAOS_RUN"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("CHAOS_RUN=%q: want a run number from 1", s)
		}
		run = n
	}
	strat := strategies[(run-1)%len(strategies)]
	bin := binDir(t)
	args := []string{"--nodes", "3", "--controller-managers", "2"}
	if os.Getenv("KPLANE_CHAOS_HA") != "0" {
		args = append(args, "--etcd-members", "3", "--apiservers", "2")
	}
	up := startCtlUp(t, bin, args...)
	c := framework.NewClient(t, up.kubeconfig(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	checker := NewChecker(map[string]string{"app": deploymentName}, statefulSetName, map[string]string{"app": statefulSetName})
	watcher := &PodWatcher{Client: c, Namespace: namespace, Check: checker.Check}
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	defer func() { stopWatch(); <-watchDone }()

	mustCreate(t, ctx, c, namespaceManifest)
	go func() { defer close(watchDone); _ = watcher.Run(watchCtx) }()
	d := mustDecode[*api.Deployment](t, fmt.Sprintf(deploymentManifest, replicas, strat.minReadySeconds, strat.maxSurge, strat.maxUnavailable))
	bounds, err := BoundsFor(d)
	if err != nil {
		t.Fatal(err)
	}
	checker.SetBounds(bounds)
	if _, err := c.Deployments(namespace).Create(ctx, d, client.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	mustCreate(t, ctx, c, serviceManifest)
	if _, err := c.StatefulSets(namespace).Create(ctx, mustDecode[*api.StatefulSet](t, statefulSetManifest), client.CreateOptions{}); err != nil {
		t.Fatalf("create statefulset: %v", err)
	}
	t.Logf("run %d: deployment %s, %d replicas, maxSurge %s maxUnavailable %s (at most %d non-terminating, at least %d available); statefulset %s 2 → 5 → 2",
		run, deploymentName, replicas, strat.maxSurge, strat.maxUnavailable, bounds.Replicas+bounds.MaxSurge, bounds.Replicas-bounds.MaxUnavailable, statefulSetName)
	waitSettled(t, ctx, up, c, settleTimeout, "the first rollout (no chaos yet)")
	checker.ArmAvailability()

	killer := &Killer{DataDir: up.dataDir, Client: c, Interval: killInterval, IntN: rand.IntN, Logf: t.Logf}
	killCtx, stopKilling := context.WithCancel(ctx)
	killerDone := make(chan struct{})
	// Deferred calls run last-in first-out, also when a failed wait ends
	// the test early: the killer stops (and stops logging) first, then
	// the run is summarized.
	defer summarize(t, run, strat, bounds, start, killer, checker, watcher)
	go func() { defer close(killerDone); killer.Run(killCtx) }()
	defer func() { stopKilling(); <-killerDone }()
	// The rollout starts once the chaos has: a component has just died.
	waitFirstKill(t, killer, time.Minute)

	// One rollout: a new template, while the StatefulSet grows from 2 to
	// 5 and, once it has, shrinks to 2 again.
	mustPatch(t, ctx, c.Deployments(namespace), deploymentName, `{"spec":{"template":{"metadata":{"annotations":{"chaos/revision":"2"}}}}}`)
	mustPatch(t, ctx, c.StatefulSets(namespace), statefulSetName, `{"spec":{"replicas":5}}`)
	waitStatefulSetReady(t, ctx, up, c, 5, rolloutTimeout)
	mustPatch(t, ctx, c.StatefulSets(namespace), statefulSetName, `{"spec":{"replicas":2}}`)
	waitSettled(t, ctx, up, c, rolloutTimeout, "the rollout and the StatefulSet's scale-up and down under chaos")

	stopKilling()
	<-killerDone
	// The end state, read once more after the last restart.
	waitSettled(t, ctx, up, c, settleTimeout, "the end state after the last kill")
	waitWatcherCaughtUp(t, ctx, c, watcher, time.Minute)
	stopWatch()
	<-watchDone

}

// summarize reports a run, whether it passed or stopped at a failed
// wait: every kill the supervisor did not undo, every broken invariant,
// and the SUMMARY line `make chaos` prints.
func summarize(t *testing.T, run int, strat strategy, bounds DeploymentBounds, start time.Time, killer *Killer, checker *Checker, watcher *PodWatcher) {
	kills, report, seen := killer.Kills(), checker.Report(), watcher.Report()
	perKind := map[string]int{}
	for _, k := range kills {
		perKind[k.Target.Kind]++
		if k.NewPID == 0 {
			t.Errorf("%s was not restarted by the supervisor within %s", k.Target.Component, restartDeadline)
		}
	}
	if len(kills) == 0 {
		t.Errorf("no component was killed: the run proved nothing")
	}
	for _, v := range report.Violations {
		t.Errorf("invariant broken: %s", v)
	}
	if report.ViolationCount > len(report.Violations) {
		t.Errorf("… %d violations in all", report.ViolationCount)
	}
	t.Logf("SUMMARY run %d (maxSurge %s, maxUnavailable %s): %s in %s; %d kills %s; %d samples checked (%d watch events, %d lists, %d watch resumes), %d violations; at most %d non-terminating (limit %d), at least %d available (limit %d), at most %d pod(s) per ordinal",
		run, strat.maxSurge, strat.maxUnavailable, verdict(t), time.Since(start).Round(time.Second), len(kills), formatKinds(perKind),
		report.Samples, seen.Events, seen.Relists, seen.Reconnects, report.ViolationCount,
		report.MostNonTerminating, bounds.Replicas+bounds.MaxSurge, report.FewestAvailable, bounds.Replicas-bounds.MaxUnavailable, report.MostPerOrdinal)
}

// waitWatcherCaughtUp polls until the watcher holds exactly the pods a
// fresh list returns, at the same resourceVersions: a watch that lost an
// event across the kills would hold a stale or missing pod forever.
func waitWatcherCaughtUp(t *testing.T, ctx context.Context, c *client.Client, watcher *PodWatcher, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		listCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		list, err := c.Pods(namespace).List(listCtx, client.ListOptions{})
		cancel()
		if err == nil {
			want := map[string]string{}
			for _, pod := range list.Items {
				want[pod.UID] = pod.ResourceVersion
			}
			got := watcher.ResourceVersions()
			if maps.Equal(got, want) {
				return
			}
			last = fmt.Sprintf("the watcher holds %d pods, the list %d; they differ", len(got), len(want))
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not catch up with a fresh list within %s: %s", timeout, last)
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// waitFirstKill waits until the killer has killed something.
func waitFirstKill(t *testing.T, killer *Killer, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for len(killer.Kills()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the killer found nothing to kill within %s", timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitStatefulSetReady polls until the StatefulSet has observed its spec
// and counts want Ready pods.
func waitStatefulSetReady(t *testing.T, ctx context.Context, up *ctlUp, c *client.Client, want int32, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := "nothing read yet"
	for {
		getCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		sts, err := c.StatefulSets(namespace).Get(getCtx, statefulSetName, client.GetOptions{})
		cancel()
		if err == nil {
			if sts.Status.ObservedGeneration >= sts.Generation && sts.Status.ReadyReplicas == want {
				return
			}
			last = fmt.Sprintf("generation %d observed %d, %d ready", sts.Generation, sts.Status.ObservedGeneration, sts.Status.ReadyReplicas)
		} else {
			last = err.Error()
		}
		up.mustRun(t)
		if time.Now().After(deadline) {
			t.Fatalf("statefulset %s: not %d Ready after %s; last saw: %s", statefulSetName, want, timeout, last)
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// waitSettled polls until FinalProblems finds nothing, failing the test
// after timeout with the problems it last found. API errors (an apiserver
// just killed) only mean "try again".
func waitSettled(t *testing.T, ctx context.Context, up *ctlUp, c *client.Client, timeout time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last []string
	for {
		w, err := readWorkloads(ctx, c)
		if err == nil {
			if last = FinalProblems(w); len(last) == 0 {
				return
			}
		} else {
			last = []string{err.Error()}
		}
		up.mustRun(t)
		if time.Now().After(deadline) {
			t.Fatalf("%s: not settled after %s; last saw:\n  %s", what, timeout, strings.Join(last, "\n  "))
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// readWorkloads reads the Deployment, its ReplicaSets, the StatefulSet and
// every pod of the namespace.
func readWorkloads(ctx context.Context, c *client.Client) (Workloads, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var w Workloads
	var err error
	if w.Deployment, err = c.Deployments(namespace).Get(ctx, deploymentName, client.GetOptions{}); err != nil {
		return w, fmt.Errorf("get deployment: %w", err)
	}
	if w.StatefulSet, err = c.StatefulSets(namespace).Get(ctx, statefulSetName, client.GetOptions{}); err != nil {
		return w, fmt.Errorf("get statefulset: %w", err)
	}
	rsList, err := c.ReplicaSets(namespace).List(ctx, client.ListOptions{})
	if err != nil {
		return w, fmt.Errorf("list replicasets: %w", err)
	}
	w.ReplicaSets = rsList.Items
	pods, err := c.Pods(namespace).List(ctx, client.ListOptions{})
	if err != nil {
		return w, fmt.Errorf("list pods: %w", err)
	}
	w.Pods = pods.Items
	return w, nil
}

// patcher is a typed client's Patch.
type patcher[T api.Object] interface {
	Patch(ctx context.Context, name string, pt client.PatchType, data []byte, opts client.PatchOptions, subresource ...string) (T, error)
}

// mustPatch merge-patches an object, retrying while the API is away (a
// killed apiserver); any other error fails the test.
func mustPatch[T api.Object](t *testing.T, ctx context.Context, p patcher[T], name, patch string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := p.Patch(ctx, name, client.MergePatchType, []byte(patch), client.PatchOptions{})
		if err == nil {
			return
		}
		if apierrors.IsInvalid(err) || apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || time.Now().After(deadline) {
			t.Fatalf("patch %s with %s: %v", name, patch, err)
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// mustCreate creates the object of a YAML manifest through the dynamic
// path of its kind (a Namespace or a Service here).
func mustCreate(t *testing.T, ctx context.Context, c *client.Client, manifest string) {
	t.Helper()
	switch {
	case strings.Contains(manifest, "kind: Namespace"):
		if _, err := c.Namespaces().Create(ctx, mustDecode[*api.Namespace](t, manifest), client.CreateOptions{}); err != nil {
			t.Fatalf("create namespace: %v", err)
		}
	case strings.Contains(manifest, "kind: Service"):
		if _, err := c.Services(namespace).Create(ctx, mustDecode[*api.Service](t, manifest), client.CreateOptions{}); err != nil {
			t.Fatalf("create service: %v", err)
		}
	default:
		t.Fatalf("mustCreate: unexpected manifest\n%s", manifest)
	}
}

// mustDecode decodes a YAML manifest into a new T.
func mustDecode[T api.Object](t *testing.T, manifest string) T {
	t.Helper()
	data, err := yamljson.ToJSON([]byte(manifest))
	if err != nil {
		t.Fatalf("manifest to JSON: %v\n%s", err, manifest)
	}
	var obj T
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatalf("decode manifest: %v\n%s", err, manifest)
	}
	return obj
}

// verdict is "PASS" or "FAIL" for the summary line.
func verdict(t *testing.T) string {
	if t.Failed() {
		return "FAIL"
	}
	return "PASS"
}

// formatKinds prints kill counts by kind, e.g. "(apiserver 3, kubelet 2)".
func formatKinds(perKind map[string]int) string {
	var parts []string
	for _, kind := range []string{KindAPIServer, KindEtcd, KindControllerManager, KindScheduler, KindKubelet} {
		if n := perKind[kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", kind, n))
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

const namespaceManifest = `
apiVersion: v1
kind: Namespace
metadata:
  name: chaos
`

// deploymentManifest takes replicas, minReadySeconds, maxSurge and
// maxUnavailable. minReadySeconds also makes "available" differ from
// "Ready", as the invariant is about the former.
const deploymentManifest = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: chaos
spec:
  replicas: %d
  minReadySeconds: %d
  selector:
    matchLabels: {app: web}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: %s, maxUnavailable: %s}
  template:
    metadata:
      labels: {app: web}
      annotations: {chaos/revision: "1"}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: web
        image: nginx:1.27
`

const serviceManifest = `
apiVersion: v1
kind: Service
metadata:
  name: db
  namespace: chaos
spec:
  clusterIP: None
  selector: {app: db}
  ports:
  - port: 5432
`

const statefulSetManifest = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: chaos
spec:
  replicas: 2
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: db
        image: postgres:16
`
