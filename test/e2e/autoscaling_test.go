package e2e

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// Issue 15, done-when 1 and 2, with the real kubectl, on one cluster
// started with --virtual-clock so that scrape intervals, the autoscaler's
// syncs and its 300 s scale-down stabilization window pass in seconds
// (`ctl time advance`), and the load model's noise off (sim.kplane.io/noise
// "0") so that every figure is exact:
//
//  1. `kubectl top pods` and `kubectl top nodes` print what the load model
//     says (a pod: its annotations; a node: its pods plus the base), and
//     after `kubectl annotate` raises the load the figures follow within
//     one scrape interval (memory, an instantaneous working set, at once;
//     CPU, a rate between two readings of a cumulative counter, has moved
//     after one interval and is the new figure after the next).
//  2. A Deployment of 2 pods requesting 100m, `kubectl autoscale
//     --cpu-percent=50 --min=1 --max=10`: at 150m per pod the metrics
//     propose ceil(2 × 150/50) = 6, the scale-up limit of an HPA without
//     behavior makes the first step 4 (SuccessfulRescale, TARGETS
//     150%/50%), then (the new pods inherit the load) on to the maximum with
//     ScalingLimited; when the load falls to 20m it holds 10 for the
//     stabilization window, then scales down to ceil(10 × 20/50) = 4.
//     Once with kubectl 1.32 (autoscale posts autoscaling/v1) and once with
//     kubectl 1.33 (autoscaling/v2).

// metricResolution is metrics-server's default scrape interval, and the
// horizontal pod autoscaler's default sync period.
const metricResolution = 15 * time.Second

// autoscalingReaction bounds how long, on the wall clock, the components
// get to react after each advance of the cluster clock: a scrape, a sync,
// a few writes, on a loaded machine.
const autoscalingReaction = 5 * time.Second

func TestTopAndAutoscalingWithRealKubectl(t *testing.T) {
	t.Parallel()
	bin := requireControllerManager(t)
	kubectl132, kubectl133 := requireKubectlMinor(t, 32), requireKubectlMinor(t, 33)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.VirtualClock = true })
	s := &autoscalingSession{t: t, c: c, bin: bin, cl: c.Client(t), began: time.Now()}

	s.kubectl(kubectl132, autoscaledDeployment, "apply", "-f", "-")
	waitRunningPods(t, c, "default", "app=web", 2)
	s.stage("deployment web running")

	t.Run("top follows the load model", func(t *testing.T) { s.t = t; s.topFollowsTheLoad(kubectl132) })
	if t.Failed() {
		return
	}
	t.Run("kubectl 1.32 autoscale (autoscaling/v1)", func(t *testing.T) { s.t = t; s.autoscale(kubectl132, "v1") })
	if t.Failed() {
		return
	}
	t.Run("kubectl 1.33 autoscale (autoscaling/v2)", func(t *testing.T) { s.t = t; s.autoscale(kubectl133, "v2") })
}

// autoscaledDeployment is the Deployment: two pods requesting 100m.
const autoscaledDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx
        resources:
          requests:
            cpu: 100m
            memory: 64Mi
`

// autoscalingSession is the cluster and the tools one test drives it with.
type autoscalingSession struct {
	t     *testing.T
	c     *framework.LocalCluster
	bin   string
	cl    *client.Client
	began time.Time
}

// stage logs how long the test took to get somewhere.
func (s *autoscalingSession) stage(what string) {
	s.t.Logf("%s after %v", what, time.Since(s.began).Round(time.Millisecond))
}

// kubectl runs one kubectl release and fails the test if it exits non-zero.
func (s *autoscalingSession) kubectl(path, stdin string, args ...string) string {
	s.t.Helper()
	r := framework.RunKubectl(s.t, path, s.c.KubeconfigPath(), s.c.Home, stdin, args...)
	if r.Err != nil {
		s.t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(path), strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// ctl runs the built ctl and fails the test if it exits non-zero.
func (s *autoscalingSession) ctl(args ...string) string {
	s.t.Helper()
	code, out := runCtl(s.t, s.bin, append(args, "--kubeconfig", s.c.KubeconfigPath())...)
	if code != 0 {
		s.t.Fatalf("ctl %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// advanceUntil checks cond; while it does not hold, moves the cluster
// clock by step and gives the components autoscalingReaction of wall time
// to react, at most rounds times. It fails with what cond last saw.
func (s *autoscalingSession) advanceUntil(what string, step time.Duration, rounds int, cond func() (bool, string)) {
	s.t.Helper()
	var last string
	for round := 0; ; round++ {
		deadline := time.Now().Add(autoscalingReaction)
		for {
			ok, msg := cond()
			if ok {
				s.stage(fmt.Sprintf("%s (%v of cluster time)", what, time.Duration(round)*step))
				return
			}
			last = msg
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if round == rounds {
			s.t.Fatalf("%s: not after %d advances of %v; last saw:\n%s", what, rounds, step, last)
		}
		s.ctl("time", "advance", step.String())
	}
}

// topLine is one line of `kubectl top`: a name and its figures.
type topLine struct {
	name             string
	milliCPU, memMiB int64
	cpuPct, memPct   int64 // nodes only
}

// parseTop reads `kubectl top … --no-headers`.
func parseTop(out string, nodes bool) ([]topLine, error) {
	var lines []topLine
	for _, l := range nonEmptyLines(out) {
		f := strings.Fields(l)
		want := 3
		if nodes {
			want = 5
		}
		if len(f) != want {
			return nil, fmt.Errorf("line %q has %d fields, want %d", l, len(f), want)
		}
		var tl topLine
		var err error
		tl.name = f[0]
		numbers := []struct {
			text, suffix string
			into         *int64
		}{{f[1], "m", &tl.milliCPU}, {f[2], "Mi", &tl.memMiB}}
		if nodes {
			numbers = []struct {
				text, suffix string
				into         *int64
			}{{f[1], "m", &tl.milliCPU}, {f[2], "%", &tl.cpuPct}, {f[3], "Mi", &tl.memMiB}, {f[4], "%", &tl.memPct}}
		}
		for _, n := range numbers {
			if *n.into, err = strconv.ParseInt(strings.TrimSuffix(n.text, n.suffix), 10, 64); err != nil || !strings.HasSuffix(n.text, n.suffix) {
				return nil, fmt.Errorf("line %q: %q is not a number of %s", l, n.text, n.suffix)
			}
		}
		lines = append(lines, tl)
	}
	return lines, nil
}

// webPodsAt is a condition: `kubectl top pods -l app=web` lists n pods,
// each at exactly milliCPU and memMiB.
func (s *autoscalingSession) webPodsAt(kubectl string, n int, milliCPU, memMiB int64) func() (bool, string) {
	return func() (bool, string) {
		r := framework.RunKubectl(s.t, kubectl, s.c.KubeconfigPath(), s.c.Home, "", "top", "pods", "-l", "app=web", "--no-headers")
		lines, err := parseTop(r.Stdout, false)
		if r.Err != nil || err != nil {
			return false, fmt.Sprintf("kubectl top pods: %v %v\n%s%s", r.Err, err, r.Stdout, r.Stderr)
		}
		ok := len(lines) == n
		for _, l := range lines {
			ok = ok && l.milliCPU == milliCPU && l.memMiB == memMiB
		}
		return ok, fmt.Sprintf("want %d pods at %dm %dMi; kubectl top pods printed:\n%s", n, milliCPU, memMiB, r.Stdout)
	}
}

// topFollowsTheLoad is done-when 1.
func (s *autoscalingSession) topFollowsTheLoad(kubectl string) {
	t := s.t
	s.kubectl(kubectl, "", "annotate", "pods", "-l", "app=web", "--overwrite",
		"sim.kplane.io/cpu=200m", "sim.kplane.io/memory=100Mi", "sim.kplane.io/noise=0")
	s.advanceUntil("kubectl top pods shows the annotated load", metricResolution, 4, s.webPodsAt(kubectl, 2, 200, 100))

	// A node uses its pods' sum plus the base (100m, 256Mi); the other
	// pods there (none in a fresh cluster but the web pods, which have no
	// noise) are idle. The percentages are of allocatable, rounded down.
	top := s.kubectl(kubectl, "", "top", "nodes", "--no-headers")
	nodeLines, err := parseTop(top, true)
	if err != nil {
		t.Fatalf("kubectl top nodes: %v\n%s", err, top)
	}
	nodes, err := s.cl.Nodes().List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodeLines) != len(nodes.Items) {
		t.Fatalf("kubectl top nodes lists %d nodes, the cluster has %d:\n%s", len(nodeLines), len(nodes.Items), top)
	}
	pods, err := s.cl.Pods("").List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range nodeLines {
		wantCPU, wantMem, idle := int64(100), int64(256), 0
		for _, pod := range pods.Items {
			if pod.Spec.NodeName != line.name || pod.Status.Phase != api.PodRunning {
				continue
			}
			if pod.Labels["app"] == "web" {
				wantCPU, wantMem = wantCPU+200, wantMem+100
				continue
			}
			idle += len(pod.Spec.Containers) // 1m and 1Mi each, with noise
		}
		wantCPU += int64(idle)
		wantMem += int64(idle)
		// An idle container's 1m and 1Mi, 2 % noise below, round to 1m
		// (CPU rounds up to millicores) and may lose a mebibyte (memory
		// rounds down).
		if line.milliCPU != wantCPU || line.memMiB > wantMem || line.memMiB < wantMem-int64(idle)-1 {
			t.Errorf("kubectl top nodes: %s uses %dm %dMi, the load model says %dm %dMi:\n%s", line.name, line.milliCPU, line.memMiB, wantCPU, wantMem, top)
		}
		i := slices.IndexFunc(nodes.Items, func(n *api.Node) bool { return n.Name == line.name })
		if i < 0 {
			t.Fatalf("kubectl top nodes lists %s, which is not a node", line.name)
		}
		allocatable := nodes.Items[i].Status.Allocatable
		cpuPct := int64(float64(line.milliCPU) / float64(allocatable.Cpu().MilliValue()) * 100)
		if math.Abs(float64(line.cpuPct-cpuPct)) > 1 {
			t.Errorf("kubectl top nodes: %s CPU %d%%, want %d%% of allocatable %s", line.name, line.cpuPct, cpuPct, allocatable.Cpu().String())
		}
	}
	s.stage("kubectl top nodes matches the load model")

	// ctl top against the same pipeline prints what kubectl prints.
	want := s.kubectl(kubectl, "", "top", "pods", "-l", "app=web", "--containers")
	if got := s.ctl("top", "pods", "-l", "app=web", "--containers"); got != want {
		t.Errorf("ctl top pods --containers printed:\n%s\nkubectl printed:\n%s", got, want)
	}
	if got := s.ctl("top", "nodes"); len(nonEmptyLines(got)) != len(nodes.Items)+1 || !strings.HasPrefix(got, "NAME ") {
		t.Errorf("ctl top nodes printed:\n%s", got)
	}

	// Raise the load: within one scrape interval memory has followed and
	// CPU has moved; after the next, CPU is the new figure.
	s.kubectl(kubectl, "", "annotate", "pods", "-l", "app=web", "--overwrite",
		"sim.kplane.io/cpu=300m", "sim.kplane.io/memory=150Mi")
	s.ctl("time", "advance", metricResolution.String())
	framework.Eventually(t, autoscalingReaction*2, func() (bool, string) {
		r := framework.RunKubectl(t, kubectl, s.c.KubeconfigPath(), s.c.Home, "", "top", "pods", "-l", "app=web", "--no-headers")
		lines, err := parseTop(r.Stdout, false)
		ok := err == nil && len(lines) == 2
		for _, l := range lines {
			ok = ok && l.memMiB == 150 && l.milliCPU > 200
		}
		return ok, fmt.Sprintf("one interval after raising the load to 300m 150Mi: %v\n%s%s", err, r.Stdout, r.Stderr)
	})
	s.advanceUntil("kubectl top pods shows the raised load", metricResolution, 2, s.webPodsAt(kubectl, 2, 300, 150))
}

// autoscale is done-when 2 with one kubectl release: version is the
// autoscaling version its `autoscale` posts.
func (s *autoscalingSession) autoscale(kubectl, version string) {
	t := s.t
	// Two pods at 150m (150 % of their requests), the load set on the
	// Deployment too so that the pods it adds carry it.
	s.kubectl(kubectl, "", "scale", "deployment", "web", "--replicas=2")
	waitRunningPods(t, s.c, "default", "app=web", 2)
	s.ctl("load", "deployment/web", "--cpu", "150m", "--memory", "64Mi", "--noise", "0")
	s.advanceUntil("both pods measured at 150m", metricResolution, 4, s.webPodsAt(kubectl, 2, 150, 64))

	if out := s.kubectl(kubectl, "", "autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=10"); out != "horizontalpodautoscaler.autoscaling/web autoscaled\n" {
		t.Fatalf("kubectl autoscale printed %q", out)
	}
	t.Cleanup(func() { s.kubectl(kubectl, "", "delete", "hpa", "web", "--ignore-not-found") })
	hpa, err := s.cl.HorizontalPodAutoscalers("default").Get(context.Background(), "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Whichever version kubectl posted, both read the same object.
	target := s.kubectl(kubectl, "", "get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "jsonpath={.spec.targetCPUUtilizationPercentage}")
	if target != "50" {
		t.Errorf("autoscaling/v1 spec.targetCPUUtilizationPercentage = %q, want 50", target)
	}
	target = s.kubectl(kubectl, "", "get", "horizontalpodautoscalers.v2.autoscaling", "web", "-o", "jsonpath={.spec.metrics[0].resource.target.averageUtilization}")
	if target != "50" {
		t.Errorf("autoscaling/v2 averageUtilization = %q, want 50", target)
	}

	// The metrics propose ceil(2 × 150/50) = 6, but an HPA without
	// spec.behavior (kubectl autoscale writes none) grows by at most
	// max(2 × current, 4) per step, upstream's normalizeDesiredReplicas:
	// the first rescale is to 4. What comes next depends on whether the
	// two new pods have been measured yet (a missing pod counts as idle on
	// a scale up: 6 if not, 8 if so), so only the first step is asserted.
	s.advanceUntil("the HPA scaled web to 4 (the scale-up limit)", metricResolution, 6, s.rescaledTo(hpa.UID, 4, "cpu resource utilization (percentage of request) above target"))
	// The new pods inherit the load: ceil(6 × 150/50) = 18, limited to 10.
	s.advanceUntil("the HPA scaled web to its maximum, 10", metricResolution, 12, func() (bool, string) {
		out := s.kubectlOut(kubectl, "get", "hpa", "web", "--no-headers")
		limited := s.kubectlOut(kubectl, "get", "hpa", "web", "-o", `jsonpath={.status.conditions[?(@.type=="ScalingLimited")].reason}`)
		f := strings.Fields(out)
		return len(f) >= 2 && strings.Contains(out, " cpu: 150%/50% ") && f[len(f)-2] == "10" && limited == "TooManyReplicas",
			fmt.Sprintf("kubectl get hpa web:\n%sScalingLimited reason %q", out, limited)
	})
	waitRunningPods(t, s.c, "default", "app=web", 10)

	// Load down to 20 %: ceil(10 × 20/50) = 4, but the stabilization
	// window (300 s) keeps the highest recommendation of its span, 10.
	s.ctl("load", "deployment/web", "--cpu", "20m", "--noise", "0")
	s.advanceUntil("the HPA measured 20%", metricResolution, 6, func() (bool, string) {
		out := s.kubectlOut(kubectl, "get", "hpa", "web", "--no-headers")
		return strings.Contains(out, " cpu: 20%/50% "), "kubectl get hpa web:\n" + out
	})
	for range 4 { // a minute more, well inside the window
		s.ctl("time", "advance", metricResolution.String())
	}
	time.Sleep(autoscalingReaction)
	replicas := s.kubectlOut(kubectl, "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}")
	stabilized := s.kubectlOut(kubectl, "get", "hpa", "web", "-o", `jsonpath={.status.conditions[?(@.type=="AbleToScale")].reason}`)
	if replicas != "10" || stabilized != "ScaleDownStabilized" {
		t.Fatalf("a minute after the load fell: web has %s replicas, AbleToScale %q; want 10 and ScaleDownStabilized (the 300 s window holds)", replicas, stabilized)
	}
	s.stage("the stabilization window holds")
	s.ctl("time", "advance", "5m")
	s.advanceUntil("the HPA scaled web down to 4", metricResolution, 4, s.rescaledTo(hpa.UID, 4, "All metrics below target"))
	if replicas := s.kubectlOut(kubectl, "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"); replicas != "4" {
		t.Errorf("after the scale down web has %s replicas, want 4", replicas)
	}
}

// kubectlOut runs the default kubectl and returns stdout, or "" on error.
func (s *autoscalingSession) kubectlOut(path string, args ...string) string {
	r := framework.RunKubectl(s.t, path, s.c.KubeconfigPath(), s.c.Home, "", args...)
	return r.Stdout
}

// rescaledTo is a condition: the HPA with uid recorded a SuccessfulRescale
// to replicas with upstream's wording ("New size: 6; reason: cpu resource
// utilization (percentage of request) above target"), and its target, web,
// was scaled to at least that many replicas (the HPA may have gone on
// since: this is no timed assertion).
func (s *autoscalingSession) rescaledTo(uid string, replicas int, reason string) func() (bool, string) {
	return func() (bool, string) {
		events, err := s.cl.Events("default").List(context.Background(), client.ListOptions{FieldSelector: "involvedObject.uid=" + uid})
		if err != nil {
			return false, err.Error()
		}
		want := fmt.Sprintf("New size: %d; reason: %s", replicas, reason)
		var seen []string
		found := false
		for _, e := range events.Items {
			seen = append(seen, e.Reason+": "+e.Message)
			found = found || (e.Reason == "SuccessfulRescale" && e.Type == api.EventTypeNormal && e.Message == want)
		}
		deployment, err := s.cl.Deployments("default").Get(context.Background(), "web", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if deployment.Spec.Replicas == nil {
			return false, "web has no spec.replicas"
		}
		return found, fmt.Sprintf("want event %q; web has %d replicas, the HPA's events: %q", want, *deployment.Spec.Replicas, seen)
	}
}

// requireKubectlMinor returns the path of kubectl 1.<minor>, failing the
// test when it is not installed beside kubectl.
func requireKubectlMinor(t *testing.T, minor int) string {
	t.Helper()
	for _, k := range framework.InstalledKubectlMinors(t) {
		if k.Minor == minor {
			return k.Path
		}
	}
	t.Fatalf("kubectl.1.%d is not installed beside kubectl; this test needs it", minor)
	return ""
}
