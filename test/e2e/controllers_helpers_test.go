package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/controllers/controllerutil"
	"kplane/test/framework"
)

// controllersTimeout bounds every wait for a controller to converge. The
// controllers react within milliseconds; the slack is for a loaded machine
// running several clusters and the race detector at once.
const controllersTimeout = 60 * time.Second

// podNameSuffix is the five random characters a ReplicaSet appends to its
// pods' generateName: upstream's utilrand.String alphabet, which leaves out
// vowels (no words) and the easily confused 0, 1 and 3.
const podNameSuffix = `[bcdfghjklmnpqrstvwxz2456789]{5}`

// templateHash is a pod-template-hash: the same alphabet (SafeEncodeString
// of a 32-bit FNV hash), at most 10 characters.
const templateHash = `[bcdfghjklmnpqrstvwxz2456789]{1,10}`

// startControllersCluster starts a cluster for one controller test; the
// controller-manager must have been built, or the test would only wait for
// nothing to happen.
func startControllersCluster(t *testing.T, nodes int) *framework.LocalCluster {
	t.Helper()
	framework.RequireKubectl(t)
	requireControllerManager(t)
	// The seeds' flows these tests replay were recorded on a cluster
	// without a default StorageClass: their claims bind to hand-made
	// volumes of no class.
	return framework.StartCluster(t, func(o *cluster.Options) { o.Nodes, o.DefaultStorageClass = nodes, false })
}

// requireControllerManager fails the test when ./cmd/controller-manager is
// not part of the build: every test here needs the controllers.
func requireControllerManager(t testing.TB) string {
	t.Helper()
	bin := framework.BuildBinaries(t)
	if !framework.HasBinary(bin, "controller-manager") {
		t.Fatalf("bin/controller-manager was not built (./cmd/controller-manager is missing): the controllers cannot run")
	}
	return bin
}

// examplePath is the path of a file under examples/.
func examplePath(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(framework.RepoRoot(t), "examples", name)
}

// applyYAML runs `kubectl apply -f -` with manifest on stdin.
func applyYAML(t *testing.T, c *framework.LocalCluster, manifest string) string {
	t.Helper()
	r := c.Kubectl(t, manifest, "apply", "-f", "-")
	if r.Err != nil {
		t.Fatalf("kubectl apply: %v\n%s%s\nmanifest:\n%s", r.Err, r.Stdout, r.Stderr, manifest)
	}
	return r.Stdout
}

// waitKubectl runs kubectl args until ok accepts its output; on timeout it
// fails with the last output (or error) kubectl printed.
func waitKubectl(t *testing.T, c *framework.LocalCluster, timeout time.Duration, ok func(stdout string) bool, args ...string) string {
	t.Helper()
	var out string
	framework.Eventually(t, timeout, func() (bool, string) {
		r := c.Kubectl(t, "", args...)
		if r.Err != nil {
			return false, fmt.Sprintf("kubectl %s: %v\n%s%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		out = r.Stdout
		return ok(out), fmt.Sprintf("kubectl %s printed:\n%s", strings.Join(args, " "), out)
	})
	return out
}

// nonEmptyLines splits kubectl output into its non-blank lines.
func nonEmptyLines(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// podTable parses `kubectl get pods --no-headers` into name → STATUS.
func podTable(out string) map[string]string {
	pods := map[string]string{}
	for _, l := range nonEmptyLines(out) {
		f := strings.Fields(l)
		if len(f) >= 3 {
			pods[f[0]] = f[2]
		}
	}
	return pods
}

// allRunning reports whether pods has exactly n entries, every one Running
// (a Terminating pod shows as Terminating and so does not count).
func allRunning(pods map[string]string, n int) bool {
	if len(pods) != n {
		return false
	}
	for _, status := range pods {
		if status != "Running" {
			return false
		}
	}
	return true
}

// waitRunningPods waits until `kubectl get pods -l selector` lists exactly
// n pods, all Running, and returns their names.
func waitRunningPods(t *testing.T, c *framework.LocalCluster, ns, selector string, n int) []string {
	t.Helper()
	out := waitKubectl(t, c, controllersTimeout, func(out string) bool { return allRunning(podTable(out), n) },
		"get", "pods", "-n", ns, "-l", selector, "--no-headers")
	return sortedKeys(podTable(out))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// notMatching returns the names that do not match re.
func notMatching(re *regexp.Regexp, names []string) []string {
	var bad []string
	for _, n := range names {
		if !re.MatchString(n) {
			bad = append(bad, n)
		}
	}
	return bad
}

// listPods lists the pods of ns matching selector through the API.
func listPods(t *testing.T, cl *client.Client, ns, selector string) []*api.Pod {
	t.Helper()
	list, err := cl.Pods(ns).List(context.Background(), client.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatalf("list pods %s in %s: %v", selector, ns, err)
	}
	return list.Items
}

// describePods summarises pods for failure messages: name, phase,
// readiness, deletion and image.
func describePods(pods []*api.Pod) string {
	var b strings.Builder
	sorted := append([]*api.Pod(nil), pods...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, p := range sorted {
		fmt.Fprintf(&b, "  %s phase=%s ready=%v terminating=%v", p.Name, p.Status.Phase, controllerutil.IsPodReady(p), p.DeletionTimestamp != nil)
		if len(p.Spec.Containers) > 0 {
			fmt.Fprintf(&b, " image=%s", p.Spec.Containers[0].Image)
		}
		if ref := controllerutil.GetControllerOf(&p.ObjectMeta); ref != nil {
			fmt.Fprintf(&b, " owner=%s/%s", ref.Kind, ref.Name)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// tracker keeps the current set of objects a label-selected list+watch
// sees and evaluates an invariant after every event. Each event of one
// watch is a state etcd really went through (events are ordered by
// revision), so a violation it records is a state the cluster was in, not
// an artefact of polling. If the server ends the watch, the tracker lists
// again and resumes from there (the states between are not seen; the
// count of relists is in the report).
type tracker[T api.Object] struct {
	name  string
	check func(objs map[string]T) string

	mu         sync.Mutex
	objs       map[string]T
	events     int
	relists    int
	violations []string
	history    []string
	err        error

	cancel context.CancelFunc
	done   chan struct{}
}

// startTracker lists and watches objects of typed matching selector and
// calls check (under the tracker's lock) after the initial list and after
// each event; a non-empty answer is recorded as a violation. summary turns
// an event into one line of the history kept for failure messages.
func startTracker[T api.Object](t *testing.T, name string, typed *client.TypedClient[T], selector string,
	summary func(T) string, check func(objs map[string]T) string) *tracker[T] {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tr := &tracker[T]{name: name, check: check, objs: map[string]T{}, cancel: cancel, done: make(chan struct{})}
	rv, err := tr.relist(ctx, typed, selector)
	if err != nil {
		cancel()
		t.Fatalf("%s: initial list: %v", name, err)
	}
	go func() {
		defer close(tr.done)
		for ctx.Err() == nil {
			w, err := typed.Watch(ctx, client.ListOptions{LabelSelector: selector, ResourceVersion: rv})
			if err != nil {
				if ctx.Err() == nil {
					tr.setErr(fmt.Errorf("watch: %w", err))
				}
				return
			}
			for ev := range w.ResultChan() {
				if ev.Type == client.Error || ev.Type == client.Bookmark {
					continue
				}
				obj, ok := ev.Object.(T)
				if !ok {
					continue
				}
				tr.apply(ev.Type, obj, summary(obj))
			}
			w.Stop()
			if ctx.Err() != nil {
				return
			}
			if rv, err = tr.relist(ctx, typed, selector); err != nil {
				if ctx.Err() == nil {
					tr.setErr(fmt.Errorf("relist: %w", err))
				}
				return
			}
		}
	}()
	t.Cleanup(tr.stop)
	return tr
}

func (tr *tracker[T]) relist(ctx context.Context, typed *client.TypedClient[T], selector string) (string, error) {
	list, err := typed.List(ctx, client.ListOptions{LabelSelector: selector})
	if err != nil {
		return "", err
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.events > 0 || tr.relists > 0 {
		tr.relists++
	}
	tr.objs = map[string]T{}
	for _, o := range list.Items {
		tr.objs[o.GetObjectMeta().Name] = o
	}
	tr.history = append(tr.history, fmt.Sprintf("LIST at %s: %d objects", list.ResourceVersion, len(list.Items)))
	tr.evaluate()
	return list.ResourceVersion, nil
}

func (tr *tracker[T]) apply(typ client.EventType, obj T, line string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.events++
	name := obj.GetObjectMeta().Name
	if typ == client.Deleted {
		delete(tr.objs, name)
	} else {
		tr.objs[name] = obj
	}
	tr.history = append(tr.history, fmt.Sprintf("%s %s", typ, line))
	tr.evaluate()
}

// evaluate runs the invariant; the caller holds mu.
func (tr *tracker[T]) evaluate() {
	if v := tr.check(tr.objs); v != "" {
		tr.violations = append(tr.violations, fmt.Sprintf("after event %d (%s): %s", tr.events, tr.history[len(tr.history)-1], v))
	}
}

func (tr *tracker[T]) setErr(err error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.err = err
}

// stop ends the watch; it may be called more than once.
func (tr *tracker[T]) stop() {
	tr.cancel()
	<-tr.done
}

// snapshot returns a copy of the objects the tracker holds now.
func (tr *tracker[T]) snapshot() map[string]T {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := make(map[string]T, len(tr.objs))
	for k, v := range tr.objs {
		out[k] = v
	}
	return out
}

// requireNoViolations stops the tracker and fails the test with the first
// violations and the event history if the invariant ever broke, or if the
// watch failed. minEvents guards against a tracker that saw nothing.
func (tr *tracker[T]) requireNoViolations(t *testing.T, minEvents int) {
	t.Helper()
	tr.stop()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.err != nil {
		t.Errorf("%s: the watch failed: %v", tr.name, tr.err)
	}
	if tr.events < minEvents {
		t.Errorf("%s: saw only %d watch events, want at least %d (did the watch see the change?)", tr.name, tr.events, minEvents)
	}
	if len(tr.violations) > 0 {
		shown := tr.violations
		if len(shown) > 5 {
			shown = shown[:5]
		}
		hist := tr.history
		if len(hist) > 400 {
			hist = hist[len(hist)-400:]
		}
		t.Errorf("%s: the invariant broke %d times (over %d events, %d relists); first ones:\n  %s\nevent history:\n  %s",
			tr.name, len(tr.violations), tr.events, tr.relists, strings.Join(shown, "\n  "), strings.Join(hist, "\n  "))
	} else {
		t.Logf("%s: invariant held over %d watch events (%d relists)", tr.name, tr.events, tr.relists)
	}
}

// podLine is a pod's one-line summary for a tracker's history.
func podLine(p *api.Pod) string {
	image := ""
	if len(p.Spec.Containers) > 0 {
		image = p.Spec.Containers[0].Image
	}
	return fmt.Sprintf("pod %s rv=%s phase=%s ready=%v terminating=%v image=%s",
		p.Name, p.ResourceVersion, p.Status.Phase, controllerutil.IsPodReady(p), p.DeletionTimestamp != nil, image)
}

// rsLine is a ReplicaSet's one-line summary for a tracker's history.
func rsLine(rs *api.ReplicaSet) string {
	return fmt.Sprintf("rs %s rv=%s spec.replicas=%d status.replicas=%d available=%d",
		rs.Name, rs.ResourceVersion, derefInt32(rs.Spec.Replicas), rs.Status.Replicas, rs.Status.AvailableReplicas)
}

func derefInt32(p *int32) int32 {
	if p == nil {
		return 1 // the API default for replicas
	}
	return *p
}

// countPods returns how many pods are active (not terminating and not
// finished: controllerutil.IsPodActive, what a ReplicaSet counts) and how many
// of those are Ready.
func countPods(pods map[string]*api.Pod) (active, activeReady int) {
	for _, p := range pods {
		if controllerutil.IsPodActive(p) {
			active++
			if controllerutil.IsPodReady(p) {
				activeReady++
			}
		}
	}
	return active, activeReady
}
