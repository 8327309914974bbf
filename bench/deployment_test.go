package bench

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// Shape of the Deployment benchmarks: 1 000 replicas on 20 hollow nodes of
// one kubelet process (110 pods each, 2 200 in all: room for the default
// 25 % surge of a rolling update).
const (
	deploymentReplicas = 1000
	hollowNodes        = 20
	deploymentTimeout  = 10 * time.Minute
)

// W8: seconds from creating a 1 000-replica Deployment to 1 000 Running
// pods, on a `ctl up` cluster (apiserver, scheduler, controller-manager as
// processes) plus hollow nodes: the deployment controller creates the
// ReplicaSet, the ReplicaSet controller the pods in slow-start batches,
// the scheduler binds them and the simulated kubelets run them.
//
//	go test -run '^$' -bench Deployment1000 -benchtime 1x ./bench/
func BenchmarkDeployment1000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := startDeploymentCluster(b)
		ctx := context.Background()
		b.StartTimer()
		start := time.Now()
		if _, err := c.Deployments("default").Create(ctx, benchDeployment("bench", "nginx:1.27.0"), client.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitPods(b, c, "app=bench", func(pods map[string]*api.Pod) (bool, string) {
			running := 0
			for _, p := range pods {
				if p.Status.Phase == api.PodRunning && p.DeletionTimestamp == nil {
					running++
				}
			}
			return running == deploymentReplicas, fmt.Sprintf("%d of %d pods Running (%d exist)", running, deploymentReplicas, len(pods))
		})
		elapsed := time.Since(start)
		b.StopTimer()
		b.ReportMetric(elapsed.Seconds(), "s-to-running")
		b.ReportMetric(float64(deploymentReplicas)/elapsed.Seconds(), "pods/s")
	}
}

// W9: seconds from changing the image of a 1 000-replica Deployment (all
// Running and available) to the rollout's end: 1 000 updated and available
// replicas, the old ReplicaSet scaled to 0 and its pods gone, with the
// default 25 % maxSurge / 25 % maxUnavailable.
func BenchmarkDeployment1000RollingUpdate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := startDeploymentCluster(b)
		ctx := context.Background()
		if _, err := c.Deployments("default").Create(ctx, benchDeployment("bench", "nginx:1.27.0"), client.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitRolledOut(b, c, "bench", "nginx:1.27.0")

		b.StartTimer()
		start := time.Now()
		setImage(b, c, "bench", "nginx:1.27.1")
		waitRolledOut(b, c, "bench", "nginx:1.27.1")
		elapsed := time.Since(start)
		b.StopTimer()
		b.ReportMetric(elapsed.Seconds(), "s-to-rolled-out")
	}
}

// startDeploymentCluster starts a cluster with only its control-plane node
// and adds hollowNodes nodes from one kubelet process (admin credentials:
// kubemark's hollow nodes share one client the same way), then waits for
// every hollow node to be Ready.
func startDeploymentCluster(b *testing.B) *client.Client {
	b.Helper()
	bin := framework.BuildBinaries(b)
	if !framework.HasBinary(bin, "controller-manager") {
		b.Fatal("bin/controller-manager was not built: a Deployment cannot progress without it")
	}
	lc := framework.StartCluster(b, func(o *cluster.Options) { o.Nodes = 0 })
	kubelet := exec.Command(filepath.Join(bin, "kubelet"), "--kubeconfig", lc.KubeconfigPath(),
		"--node-count", fmt.Sprint(hollowNodes), "--node-name-prefix", "hollow-", "--pod-cidr", "10.244.1.0/24",
		"--pods", "110", "--cpu", "32", "--memory", "64Gi")
	out := &framework.SyncBuffer{}
	kubelet.Stdout, kubelet.Stderr = out, out
	if err := kubelet.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = kubelet.Wait()
		close(exited)
	}()
	b.Cleanup(func() {
		_ = kubelet.Process.Kill() // this process only, by its PID
		<-exited
		if b.Failed() {
			b.Logf("hollow kubelet output:\n%s", out)
		}
	})
	c := benchClient(b, lc.KubeconfigPath())
	framework.Eventually(b, 2*time.Minute, func() (bool, string) {
		nodes, err := c.Nodes().List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, cond := range n.Status.Conditions {
				if cond.Type == api.NodeReady && cond.Status == api.ConditionTrue && n.Name != cluster.ControlPlaneNodeName {
					ready++
				}
			}
		}
		return ready == hollowNodes, fmt.Sprintf("%d of %d hollow nodes Ready", ready, hollowNodes)
	})
	return c
}

// benchDeployment is a deployment of deploymentReplicas small pods.
func benchDeployment(name, image string) *api.Deployment {
	replicas := int32(deploymentReplicas)
	labels := map[string]string{"app": name}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: image}}},
			},
		},
	}
}

// setImage changes the deployment's image, retrying on conflicts (the
// controller writes its status meanwhile).
func setImage(b *testing.B, c *client.Client, name, image string) {
	b.Helper()
	ctx := context.Background()
	for {
		d, err := c.Deployments("default").Get(ctx, name, client.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		d.Spec.Template.Spec.Containers[0].Image = image
		_, err = c.Deployments("default").Update(ctx, d, client.UpdateOptions{})
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			b.Fatal(err)
		}
	}
}

// waitRolledOut polls until the deployment's rollout of image is complete
// as `kubectl rollout status` judges it (observedGeneration current, all
// replicas updated and available, no old replicas), the old ReplicaSets
// are at 0 and no pod of another image is left.
func waitRolledOut(b *testing.B, c *client.Client, name, image string) {
	b.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(deploymentTimeout)
	var last string
	for time.Now().Before(deadline) {
		done, msg := rolledOut(ctx, c, name, image)
		if done {
			return
		}
		last = msg
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("rollout of %s to %s not complete after %v: %s", name, image, deploymentTimeout, last)
}

func rolledOut(ctx context.Context, c *client.Client, name, image string) (bool, string) {
	d, err := c.Deployments("default").Get(ctx, name, client.GetOptions{})
	if err != nil {
		return false, err.Error()
	}
	s := d.Status
	if s.ObservedGeneration < d.Generation || s.UpdatedReplicas != deploymentReplicas ||
		s.Replicas != deploymentReplicas || s.AvailableReplicas != deploymentReplicas {
		return false, fmt.Sprintf("generation %d observed %d, replicas %d updated %d available %d",
			d.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.AvailableReplicas)
	}
	rss, err := c.ReplicaSets("default").List(ctx, client.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		return false, err.Error()
	}
	for _, rs := range rss.Items {
		if rs.Spec.Template.Spec.Containers[0].Image != image && (rs.Spec.Replicas == nil || *rs.Spec.Replicas != 0 || rs.Status.Replicas != 0) {
			return false, fmt.Sprintf("old replicaset %s not at 0 yet (spec %v, status %d)", rs.Name, rs.Spec.Replicas, rs.Status.Replicas)
		}
	}
	pods, err := c.Pods("default").List(ctx, client.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		return false, err.Error()
	}
	old := 0
	for _, p := range pods.Items {
		if p.Spec.Containers[0].Image != image {
			old++
		}
	}
	return old == 0 && len(pods.Items) == deploymentReplicas, fmt.Sprintf("%d pods, %d of them old", len(pods.Items), old)
}

// waitPods watches the pods matching selector until done accepts the set
// (listing again whenever the server ends the watch, as a reflector does).
func waitPods(b *testing.B, c *client.Client, selector string, done func(map[string]*api.Pod) (bool, string)) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deploymentTimeout)
	defer cancel()
	var last string
	for ctx.Err() == nil {
		list, err := c.Pods("default").List(ctx, client.ListOptions{LabelSelector: selector})
		if err != nil {
			break
		}
		pods := map[string]*api.Pod{}
		for _, p := range list.Items {
			pods[p.Name] = p
		}
		ok, msg := done(pods)
		if ok {
			return
		}
		last = msg
		w, err := c.Pods("default").Watch(ctx, client.ListOptions{LabelSelector: selector, ResourceVersion: list.ResourceVersion})
		if err != nil {
			break
		}
		for ev := range w.ResultChan() {
			p, isPod := ev.Object.(*api.Pod)
			if !isPod {
				continue
			}
			if ev.Type == client.Deleted {
				delete(pods, p.Name)
			} else {
				pods[p.Name] = p
			}
			if ok, msg = done(pods); ok {
				w.Stop()
				return
			}
			last = msg
		}
		w.Stop()
	}
	b.Fatalf("pods %s: not done after %v: %s", selector, deploymentTimeout, last)
}
