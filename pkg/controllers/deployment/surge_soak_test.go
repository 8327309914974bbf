package deployment_test

// The over-surge soak: rolling updates of 10 replicas with maxSurge 1,
// run again and again beside busy-loop processes, with a watch that checks
// the rollout's surge promise at every pod event. It is issue 17's "12
// pods not Terminating for 10 replicas and maxSurge 1" turned into a test.
//
// The promise is about pods without metadata.deletionTimestamp: never
// more than replicas+maxSurge of them. The fake kubelet ends a graceful
// deletion as the real one does (final status, phase Succeeded, then the
// delete), and between those two writes `kubectl get pods` prints the pod
// "Completed", not "Terminating"; the watch counts those lines too and
// logs their maximum, which is what the report saw (see "Counting the
// surge" in docs/controllers/deployment.md).
//
// KPLANE_SURGE_ROLLOUTS sets how many rollouts run: 1 by default, the
// version `make test` runs (about 20 s under the race detector); `make
// surge` runs 50. KPLANE_SURGE_BUSY sets how many busy-loop processes run
// beside it: none by default, because in `make test` the other packages'
// tests already load every core and a busy loop would slow all of them;
// `make surge` runs 2 per core.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/controllers/deployment"
	"kplane/pkg/controllers/replicaset"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

// surgeSoakNode is the node the soak's fake kubelet binds every pod to, so
// that a deleted pod is Terminating (deletionTimestamp set) until the
// kubelet confirms it stopped, as on a real node.
const surgeSoakNode = "soak-node"

// soakWaitTimeout bounds one rollout of the soak. A rollout takes a few
// seconds; the margin is for the race detector on a machine the busy loops
// and `make test`'s other packages share.
const soakWaitTimeout = 2 * time.Minute

// soakKubeletInterval is how often the soak's kubelet lists the pods: a
// new pod is bound on one pass and Ready on the next, about a real
// kubelet's pace, without the lists eating the CPU the controllers need.
const soakKubeletInterval = 50 * time.Millisecond

func TestRollingUpdateNeverExceedsMaxSurgeUnderCPUContention(t *testing.T) {
	rollouts := framework.EnvCount(t, "KPLANE_SURGE_ROLLOUTS", 1)
	busy := framework.EnvCount(t, "KPLANE_SURGE_BUSY", 0)

	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startControllersWithoutKubelet(t, c)
	watcher := startSurgeWatch(t, c)
	startSoakKubelet(t, c)
	t.Cleanup(func() {
		if t.Failed() {
			logPods(t, c)
		}
	})

	const replicas, maxSurge = 10, 1
	d := newDeployment(replicas, "nginx:0")
	surge := api.FromInt(maxSurge)
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: &surge}}
	create(t, c, d)
	waitCompleteWithin(t, c, soakWaitTimeout, replicas, "nginx:0")

	framework.StartBusyLoops(t, busy)
	start := time.Now()
	for i := 1; i <= rollouts; i++ {
		image := "nginx:" + strconv.Itoa(i)
		// Alternate the two settings the report may have used: the
		// default maxUnavailable (25%, 2 of 10) and 0.
		unavailable := api.FromString("25%")
		if i%2 == 0 {
			unavailable = api.FromInt(0)
		}
		mutate(t, c, func(d *api.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = image
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = &unavailable
		})
		waitCompleteWithin(t, c, soakWaitTimeout, replicas, image)
		waitOnlyPodsOf(t, c, image, replicas)
	}
	events, maxSeen, maxPrinted, printedOver, violations := watcher.result()
	t.Logf("%d rollouts under %d busy-loop processes in %v: %d pod events checked; at most %d pods without deletionTimestamp (limit replicas+maxSurge = %d); "+
		"kubectl would have printed up to %d as not Terminating, more than %d after %d events",
		rollouts, busy, time.Since(start).Round(time.Millisecond), events, maxSeen, replicas+maxSurge, maxPrinted, replicas+maxSurge, printedOver)
	// Each rollout replaces every pod: at least a create and a delete each.
	if events < 2*replicas*rollouts {
		t.Errorf("the watch saw %d pod events, fewer than %d: the invariant was hardly checked", events, 2*replicas*rollouts)
	}
	for _, v := range violations {
		t.Errorf("more than replicas+maxSurge = %d pods not Terminating: %s", replicas+maxSurge, v)
	}
}

// startControllersWithoutKubelet runs the deployment and replicaset
// controllers as startControllers does, leaving the kubelet's part to
// startSoakKubelet.
func startControllersWithoutKubelet(t *testing.T, c *client.Client) {
	t.Helper()
	h := controllertest.NewControllers(t, c)
	dc, err := deployment.New(c, h.Factory, h.Recorder("deployment-controller"), deployment.Options{Logger: h.Logger})
	if err != nil {
		t.Fatalf("deployment.New: %v", err)
	}
	rsc, err := replicaset.New(c, h.Factory, h.Recorder("replicaset-controller"), replicaset.Options{Logger: h.Logger})
	if err != nil {
		t.Fatalf("replicaset.New: %v", err)
	}
	h.Run(2, dc, rsc)
}

// surgeWatch counts, at every pod event in namespace default, the pods
// without a deletionTimestamp, and remembers every moment there were more
// than the limit.
type surgeWatch struct {
	mu         sync.Mutex
	pods       map[string]*api.Pod
	events     int
	maxSeen    int
	violations []string
	// maxPrinted and printedOver are about what `kubectl get pods` would
	// print as not Terminating: pods without a deletionTimestamp plus
	// those being deleted that already finished (printed Completed or
	// Error). The most seen, and after how many events it was more than
	// replicas+maxSurge.
	maxPrinted, printedOver int
}

// startSurgeWatch lists the pods and watches them from the list's
// resourceVersion until the test ends. A watch that ends early fails the
// test: a gap would leave moments unchecked.
func startSurgeWatch(t *testing.T, c *client.Client) *surgeWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list, err := c.Pods("default").List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatalf("list pods: %v", err)
	}
	w, err := c.Pods("default").Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatalf("watch pods: %v", err)
	}
	s := &surgeWatch{pods: map[string]*api.Pod{}}
	for _, p := range list.Items {
		s.pods[p.Name] = p
	}
	done := make(chan struct{})
	var ended string
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if ev.Type == client.Error {
				ended = fmt.Sprintf("watch error: %v", ev.Err)
				return
			}
			if p, ok := ev.Object.(*api.Pod); ok {
				s.observe(ev.Type, p)
			}
		}
		if ctx.Err() == nil {
			ended = "watch closed by the server"
		}
	}()
	t.Cleanup(func() {
		cancel()
		w.Stop()
		<-done
		if ended != "" {
			t.Errorf("the surge watch ended early (%s): moments after it went unchecked", ended)
		}
	})
	return s
}

// observe applies one event and checks the counts it leaves.
func (s *surgeWatch) observe(typ client.EventType, p *api.Pod) {
	const limit = 11 // replicas + maxSurge
	s.mu.Lock()
	defer s.mu.Unlock()
	if typ == client.Deleted {
		delete(s.pods, p.Name)
	} else {
		s.pods[p.Name] = p
	}
	s.events++
	var notTerminating []string
	printed := 0
	for _, p := range s.pods {
		finished := p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
		if p.DeletionTimestamp == nil || finished {
			printed++
		}
		if p.DeletionTimestamp == nil {
			notTerminating = append(notTerminating, p.Name+"("+p.Labels[api.DefaultDeploymentUniqueLabelKey]+")")
		}
	}
	s.maxSeen = max(s.maxSeen, len(notTerminating))
	s.maxPrinted = max(s.maxPrinted, printed)
	if printed > limit {
		s.printedOver++
	}
	if len(notTerminating) > limit {
		s.violations = append(s.violations, fmt.Sprintf("after %s %s at resourceVersion %s: %d pods %v",
			typ, p.Name, p.ResourceVersion, len(notTerminating), notTerminating))
	}
}

func (s *surgeWatch) result() (events, maxSeen, maxPrinted, printedOver int, violations []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events, s.maxSeen, s.maxPrinted, s.printedOver, append([]string(nil), s.violations...)
}

// startSoakKubelet plays a node's kubelet for namespace default: it binds
// each new pod to surgeSoakNode, reports it Running and Ready, and, once a
// pod is being deleted, confirms the stop after a short random while (a
// container taking its time to exit), deleting it with grace period 0.
func startSoakKubelet(t *testing.T, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	wg.Go(func() {
		stopping := map[string]bool{}
		for ctx.Err() == nil {
			// A failed list is tried again after the wait, not at once:
			// spinning on an error would eat the CPU the test is about.
			var pods []*api.Pod
			if list, err := c.Pods("default").List(ctx, client.ListOptions{}); err == nil {
				pods = list.Items
			}
			for _, p := range pods {
				switch {
				case p.DeletionTimestamp != nil:
					if !stopping[p.Name] {
						stopping[p.Name] = true
						wg.Go(func() { confirmStop(ctx, c, p) })
					}
				case p.Spec.NodeName == "":
					_ = c.Bind(ctx, &api.Binding{ObjectMeta: api.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
						Target: api.ObjectReference{Kind: "Node", Name: surgeSoakNode}})
				case !controllerutil.IsPodReady(p):
					p.Status.Phase = api.PodRunning
					p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Now()}}
					// A conflict is retried on the next pass.
					_, _ = c.Pods("default").UpdateStatus(ctx, p, client.UpdateOptions{})
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(soakKubeletInterval):
			}
		}
	})
}

// confirmStop plays the kubelet's end of a graceful deletion, as
// pkg/kubelet's status manager (and upstream's) does it: after up to
// 200 ms (the container taking its time to exit) it reports the final
// status, phase Succeeded, and then deletes the pod for good with grace
// period 0. Between the two writes the pod is being deleted and finished:
// kubectl prints it "Completed", not "Terminating".
func confirmStop(ctx context.Context, c *client.Client, p *api.Pod) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(time.Duration(rand.IntN(200)) * time.Millisecond):
	}
	p.Status.Phase = api.PodSucceeded
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: api.Now()}}
	// A conflict (the pod changed since) is harmless: the delete follows.
	_, _ = c.Pods(p.Namespace).UpdateStatus(ctx, p, client.UpdateOptions{})
	zero := int64(0)
	_ = c.Pods(p.Namespace).Delete(ctx, p.Name, client.DeleteOptions{GracePeriodSeconds: &zero,
		Preconditions: &api.Preconditions{UID: &p.UID}})
}

// logPods logs every pod in default: what a failed rollout left behind.
func logPods(t *testing.T, c *client.Client) {
	t.Helper()
	list, err := c.Pods("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Logf("list pods: %v", err)
		return
	}
	for _, p := range list.Items {
		t.Logf("pod %s image %s node %q phase %s ready %v deletionTimestamp %v", p.Name, p.Spec.Containers[0].Image,
			p.Spec.NodeName, p.Status.Phase, controllerutil.IsPodReady(p), p.DeletionTimestamp)
	}
}

// waitOnlyPodsOf waits until the namespace holds exactly replicas pods,
// all of image: the old ReplicaSet's pods are gone, not just Terminating.
func waitOnlyPodsOf(t *testing.T, c *client.Client, image string, replicas int) {
	t.Helper()
	framework.Eventually(t, soakWaitTimeout, func() (bool, string) {
		list, err := c.Pods("default").List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, p := range list.Items {
			if p.Spec.Containers[0].Image != image {
				return false, fmt.Sprintf("pod %s still runs %s", p.Name, p.Spec.Containers[0].Image)
			}
		}
		return len(list.Items) == replicas, fmt.Sprintf("%d pods of %s", len(list.Items), image)
	})
}
