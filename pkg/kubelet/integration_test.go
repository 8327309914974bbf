package kubelet_test

// These tests run kubelets in-process (kubelet.Run) against an in-process
// apiserver on a temp etcd, and bind pods themselves as the scheduler
// would. Timings are shortened through Options (back-off, lease and status
// intervals), never by sleeping for fixed times.

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/kubelet"
	"kplane/test/framework"
)

func TestNodeRegisters(t *testing.T) {
	cl := startCluster(t)
	opts := cl.fastOptions("node1")
	opts.CPU, opts.Memory, opts.Pods = "8", "16Gi", 50
	opts.PodCIDR = "10.244.7.0/24"
	opts.KubeletPort = 10250
	opts.NodeLabels = map[string]string{"node-role.kubernetes.io/control-plane": "", "disk": "ssd"}
	opts.RegisterWithTaints = []api.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}}
	startKubelet(t, opts)

	var node *api.Node
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		n, err := cl.client.Nodes().Get(context.Background(), "node1", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		node = n
		return nodeCondition(n, api.NodeReady) == api.ConditionTrue, "node not Ready yet"
	})
	capacity := node.Status.Capacity
	if q := capacity[api.ResourceCPU]; q.String() != "8" {
		t.Errorf("cpu capacity = %s", q.String())
	}
	if q := capacity[api.ResourceMemory]; q.String() != "16Gi" {
		t.Errorf("memory capacity = %s", q.String())
	}
	if q := node.Status.Allocatable[api.ResourcePods]; q.Value() != 50 {
		t.Errorf("allocatable pods = %s", q.String())
	}
	if _, ok := capacity[api.ResourceEphemeralStorage]; !ok {
		t.Errorf("no ephemeral-storage capacity")
	}
	for key, want := range map[string]string{
		api.LabelHostname: "node1", api.LabelOS: "linux", "node-role.kubernetes.io/control-plane": "", "disk": "ssd",
	} {
		if got, ok := node.Labels[key]; !ok || got != want {
			t.Errorf("label %s = %q (present %v), want %q", key, got, ok, want)
		}
	}
	if _, ok := node.Labels[api.LabelArch]; !ok {
		t.Errorf("no %s label", api.LabelArch)
	}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0].Key != "node-role.kubernetes.io/control-plane" {
		t.Errorf("taints = %+v", node.Spec.Taints)
	}
	if node.Spec.PodCIDR != "10.244.7.0/24" {
		t.Errorf("podCIDR = %q", node.Spec.PodCIDR)
	}
	wantConditions := map[api.NodeConditionType][2]string{
		api.NodeMemoryPressure: {"False", "KubeletHasSufficientMemory"},
		api.NodeDiskPressure:   {"False", "KubeletHasNoDiskPressure"},
		api.NodePIDPressure:    {"False", "KubeletHasSufficientPID"},
		api.NodeReady:          {"True", "KubeletReady"},
	}
	for _, c := range node.Status.Conditions {
		want := wantConditions[c.Type]
		if string(c.Status) != want[0] || c.Reason != want[1] || c.LastHeartbeatTime.IsZero() {
			t.Errorf("condition %s = %s/%s, want %s/%s", c.Type, c.Status, c.Reason, want[0], want[1])
		}
		delete(wantConditions, c.Type)
	}
	if len(wantConditions) > 0 {
		t.Errorf("missing conditions %v", wantConditions)
	}
	info := node.Status.NodeInfo
	if info.KubeletVersion != "v1.32.0-kplane" || info.ContainerRuntimeVersion != "kplane-simulated://0.1" || info.OperatingSystem != "linux" {
		t.Errorf("nodeInfo = %+v", info)
	}
	if node.Status.DaemonEndpoints.KubeletEndpoint.Port != 10250 {
		t.Errorf("kubelet port = %d", node.Status.DaemonEndpoints.KubeletEndpoint.Port)
	}
	addresses := map[api.NodeAddressType]string{}
	for _, a := range node.Status.Addresses {
		addresses[a.Type] = a.Address
	}
	if addresses[api.NodeInternalIP] != "127.0.0.1" || addresses[api.NodeHostName] != "node1" {
		t.Errorf("addresses = %v", node.Status.Addresses)
	}
}

func TestLeaseRenewsAndStopsWithTheKubelet(t *testing.T) {
	cl := startCluster(t)
	k := startKubelet(t, cl.fastOptions("node1"))
	leases := cl.client.Leases(kubelet.NodeLeaseNamespace)
	var first *api.Lease
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		l, err := leases.Get(context.Background(), "node1", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		first = l
		return len(l.OwnerReferences) == 1, "no ownerReference yet"
	})
	if *first.Spec.HolderIdentity != "node1" || *first.Spec.LeaseDurationSeconds != 40 ||
		first.OwnerReferences[0].Kind != "Node" || first.OwnerReferences[0].Name != "node1" {
		t.Fatalf("lease = %+v", first)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		l, err := leases.Get(context.Background(), "node1", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return l.Spec.RenewTime.After(first.Spec.RenewTime.Time), "renewTime has not moved"
	})

	k.stop(t)
	stopped, err := leases.Get(context.Background(), "node1", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Ten renew intervals later, nothing has renewed it.
	time.Sleep(10 * 100 * time.Millisecond)
	later, err := leases.Get(context.Background(), "node1", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !later.Spec.RenewTime.Equal(stopped.Spec.RenewTime.Time) {
		t.Errorf("the lease was renewed after the kubelet stopped: %v → %v", stopped.Spec.RenewTime, later.Spec.RenewTime)
	}
}

// When the node lifecycle controller has marked the node Unknown (the
// kubelet was frozen), the kubelet's next status sync puts its conditions
// back, although its own report did not change — as upstream's kubelet,
// which compares its status with the Node it reads, not with its last
// write. The NodeReady event says so.
func TestKubeletRepostsConditionsMarkedUnknown(t *testing.T) {
	cl := startCluster(t)
	opts := cl.fastOptions("node1")
	startKubelet(t, opts)
	waitNodesReady(t, cl, 1)
	ctx := context.Background()
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		node, err := cl.client.Nodes().Get(ctx, "node1", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for i := range node.Status.Conditions {
			c := &node.Status.Conditions[i]
			c.Status, c.Reason, c.Message = api.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
		}
		_, err = cl.client.Nodes().UpdateStatus(ctx, node, client.UpdateOptions{})
		return err == nil, fmt.Sprint(err)
	})
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		node, err := cl.client.Nodes().Get(ctx, "node1", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, c := range node.Status.Conditions {
			if c.Status == api.ConditionUnknown {
				return false, fmt.Sprintf("condition %s still Unknown (%s)", c.Type, c.Reason)
			}
		}
		return nodeCondition(node, api.NodeReady) == api.ConditionTrue, "Ready is not True"
	})
}

// A pod whose Ready condition someone else turned False (the node
// lifecycle controller, while this kubelet was frozen) is made Ready again
// by the kubelet, although the status the kubelet wants did not change.
func TestKubeletRepostsPodStatusChangedByOthers(t *testing.T) {
	cl := startCluster(t)
	startKubelet(t, cl.fastOptions("node1"))
	cl.createBoundPod(t, simplePod("web", api.RestartPolicyAlways, nil), "node1")
	cl.waitPod(t, "web", func(p *api.Pod) bool { return podCondition(p, api.PodReady) == api.ConditionTrue })

	ctx := context.Background()
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		pod := cl.getPod(t, "default", "web")
		for i := range pod.Status.Conditions {
			if pod.Status.Conditions[i].Type == api.PodReady {
				pod.Status.Conditions[i].Status = api.ConditionFalse
				pod.Status.Conditions[i].LastTransitionTime = api.Now()
			}
		}
		_, err := cl.client.Pods("default").UpdateStatus(ctx, pod, client.UpdateOptions{})
		return err == nil, fmt.Sprint(err)
	})
	cl.waitPod(t, "web", func(p *api.Pod) bool { return podCondition(p, api.PodReady) == api.ConditionTrue })
}

func TestPodLifecycle(t *testing.T) {
	cl := startCluster(t)
	opts := cl.fastOptions("node1")
	opts.PodCIDR = "10.244.1.0/24"
	startKubelet(t, opts)

	cl.createBoundPod(t, simplePod("web", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/start-delay": "1s"}), "node1")
	creating := cl.waitPod(t, "web", func(p *api.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Waiting != nil
	})
	if r := creating.Status.ContainerStatuses[0].State.Waiting.Reason; r != "ContainerCreating" || creating.Status.Phase != api.PodPending {
		t.Errorf("while starting: phase=%s reason=%s", creating.Status.Phase, r)
	}
	pod := cl.waitPod(t, "web", func(p *api.Pod) bool {
		return p.Status.Phase == api.PodRunning && podCondition(p, api.PodReady) == api.ConditionTrue
	})
	if !netip.MustParsePrefix("10.244.1.0/24").Contains(netip.MustParseAddr(pod.Status.PodIP)) {
		t.Errorf("pod IP %s is not in the node's podCIDR", pod.Status.PodIP)
	}
	if pod.Status.HostIP != "127.0.0.1" || pod.Status.StartTime == nil || pod.Status.QOSClass != api.PodQOSBestEffort {
		t.Errorf("hostIP=%s startTime=%v qosClass=%s", pod.Status.HostIP, pod.Status.StartTime, pod.Status.QOSClass)
	}
	for _, ct := range []api.PodConditionType{api.PodScheduled, api.PodReadyToStartContainers, api.PodInitialized, api.ContainersReady} {
		if podCondition(pod, ct) != api.ConditionTrue {
			t.Errorf("%s = %s", ct, podCondition(pod, ct))
		}
	}
	cs := pod.Status.ContainerStatuses[0]
	if cs.State.Running == nil || !cs.Ready || !strings.HasPrefix(cs.ContainerID, "kplane://") {
		t.Errorf("container status = %+v", cs)
	}
	cl.waitEvents(t, "web", "Pulling", "Pulled", "Created", "Started")

	// A second pod gets a different IP.
	cl.createBoundPod(t, simplePod("web2", api.RestartPolicyAlways, nil), "node1")
	other := cl.waitPod(t, "web2", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })
	if other.Status.PodIP == pod.Status.PodIP {
		t.Errorf("two running pods share IP %s", pod.Status.PodIP)
	}
}

// TestRestartPolicyPhases checks the restart counts and phases Kubernetes
// gives a crashing container under each restart policy.
func TestRestartPolicyPhases(t *testing.T) {
	cl := startCluster(t)
	startKubelet(t, cl.fastOptions("node1"))
	crash := map[string]string{"sim.kplane.io/crash-after": "100ms"}
	cl.createBoundPod(t, simplePod("never", api.RestartPolicyNever, crash), "node1")
	cl.createBoundPod(t, simplePod("onfailure", api.RestartPolicyOnFailure, crash), "node1")
	cl.createBoundPod(t, simplePod("always", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/run-seconds": "100ms"}), "node1")

	never := cl.waitPod(t, "never", func(p *api.Pod) bool { return p.Status.Phase == api.PodFailed })
	if cs := never.Status.ContainerStatuses[0]; cs.RestartCount != 0 || cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 1 {
		t.Errorf("Never: %s", describePod(never))
	}
	// OnFailure: restarted, and in CrashLoopBackOff between restarts.
	cl.waitPod(t, "onfailure", func(p *api.Pod) bool {
		cs := p.Status.ContainerStatuses
		return p.Status.Phase == api.PodRunning && len(cs) == 1 && cs[0].RestartCount >= 2 &&
			cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == "CrashLoopBackOff" &&
			strings.HasPrefix(cs[0].State.Waiting.Message, "back-off ") && cs[0].LastTerminationState.Terminated != nil
	})
	// Always: a container that exits 0 is restarted too.
	cl.waitPod(t, "always", func(p *api.Pod) bool {
		cs := p.Status.ContainerStatuses
		return p.Status.Phase == api.PodRunning && len(cs) == 1 && cs[0].RestartCount >= 2 &&
			cs[0].LastTerminationState.Terminated != nil && cs[0].LastTerminationState.Terminated.Reason == "Completed"
	})
	cl.waitEvents(t, "onfailure", "BackOff")
}

func TestProbes(t *testing.T) {
	cl := startCluster(t)
	startKubelet(t, cl.fastOptions("node1"))
	httpGet := api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/", Port: api.FromInt(80)}}

	unready := simplePod("unready", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/readiness": "fail"})
	unready.Spec.Containers[0].ReadinessProbe = &api.Probe{ProbeHandler: httpGet, PeriodSeconds: 1}
	cl.createBoundPod(t, unready, "node1")
	unhealthy := simplePod("unhealthy", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/liveness": "fail"})
	unhealthy.Spec.Containers[0].LivenessProbe = &api.Probe{ProbeHandler: httpGet, PeriodSeconds: 1, FailureThreshold: 1}
	cl.createBoundPod(t, unhealthy, "node1")

	// A failing readiness probe keeps the pod Running but not Ready.
	cl.waitEvents(t, "unready", "Unhealthy")
	pod := cl.waitPod(t, "unready", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })
	if podCondition(pod, api.PodReady) != api.ConditionFalse || pod.Status.ContainerStatuses[0].Ready {
		t.Errorf("a pod failing its readiness probe is Ready: %s", describePod(pod))
	}
	// A failing liveness probe restarts the container.
	cl.waitPod(t, "unhealthy", func(p *api.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 1
	})
	cl.waitEvents(t, "unhealthy", "Unhealthy", "Killing")
}

func TestPodDeletionIsGraceful(t *testing.T) {
	cl := startCluster(t)
	startKubelet(t, cl.fastOptions("node1"))
	pod := simplePod("doomed", api.RestartPolicyAlways, map[string]string{"sim.kplane.io/stop-seconds": "1"})
	cl.createBoundPod(t, pod, "node1")
	running := cl.waitPod(t, "doomed", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })

	if err := cl.client.Pods("default").Delete(context.Background(), "doomed", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The object stays, marked for deletion, while the container stops...
	terminating := cl.getPod(t, "default", "doomed")
	if terminating == nil || terminating.DeletionTimestamp == nil {
		t.Fatalf("the pod was not deleted gracefully: %+v", terminating)
	}
	// ...and goes once the kubelet has stopped it.
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		return cl.getPod(t, "default", "doomed") == nil, "pod still exists"
	})
	cl.waitEventsUID(t, "doomed", running.UID, "Killing")
}

func TestStaticPod(t *testing.T) {
	cl := startCluster(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "static-web.yaml")
	writeFile(t, manifest, `apiVersion: v1
kind: Pod
metadata:
  name: static-web
  labels:
    role: myrole
spec:
  containers:
  - name: web
    image: nginx
    ports:
    - containerPort: 80
`)
	opts := cl.fastOptions("node1")
	opts.PodManifestPath = dir
	startKubelet(t, opts)

	mirror := cl.waitPod(t, "static-web-node1", func(p *api.Pod) bool {
		return p.Status.Phase == api.PodRunning && podCondition(p, api.PodReady) == api.ConditionTrue
	})
	if mirror.Annotations[kubelet.AnnotationConfigMirror] == "" || mirror.Annotations[kubelet.AnnotationConfigSource] != "file" {
		t.Errorf("mirror annotations = %v", mirror.Annotations)
	}
	if len(mirror.OwnerReferences) != 1 || mirror.OwnerReferences[0].Kind != "Node" || mirror.OwnerReferences[0].Name != "node1" {
		t.Errorf("mirror ownerReferences = %+v", mirror.OwnerReferences)
	}
	if mirror.Spec.NodeName != "node1" || mirror.Labels["role"] != "myrole" {
		t.Errorf("mirror nodeName=%s labels=%v", mirror.Spec.NodeName, mirror.Labels)
	}

	// Deleting the mirror pod does not stop the static pod: it comes back.
	if err := cl.client.Pods("default").Delete(context.Background(), mirror.Name, client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cl.waitPod(t, "static-web-node1", func(p *api.Pod) bool {
		return p.UID != mirror.UID && p.Status.Phase == api.PodRunning
	})

	// Removing the file stops the pod and deletes the mirror.
	if err := os.Remove(manifest); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		return cl.getPod(t, "default", "static-web-node1") == nil, "mirror pod still exists"
	})
}

// TestKubeletRestart kills a kubelet and starts another for the same node:
// the Lease stops being renewed meanwhile, and the new kubelet picks up the
// pods where the old one left them.
func TestKubeletRestart(t *testing.T) {
	cl := startCluster(t)
	opts := cl.fastOptions("node1")
	first := startKubelet(t, opts)
	cl.createBoundPod(t, simplePod("keeper", api.RestartPolicyAlways, map[string]string{
		"sim.kplane.io/crash-after": "100ms", "sim.kplane.io/crash-count": "1"}), "node1")
	before := cl.waitPod(t, "keeper", func(p *api.Pod) bool {
		cs := p.Status.ContainerStatuses
		return p.Status.Phase == api.PodRunning && len(cs) == 1 && cs[0].RestartCount == 1 && cs[0].State.Running != nil
	})
	first.stop(t)

	startKubelet(t, opts)
	// Give the new kubelet time to sync: its node status and lease move.
	lease, _ := cl.client.Leases(kubelet.NodeLeaseNamespace).Get(context.Background(), "node1", client.GetOptions{})
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		l, err := cl.client.Leases(kubelet.NodeLeaseNamespace).Get(context.Background(), "node1", client.GetOptions{})
		return err == nil && l.Spec.RenewTime.After(lease.Spec.RenewTime.Time), "lease not renewed by the new kubelet"
	})
	cl.createBoundPod(t, simplePod("newcomer", api.RestartPolicyAlways, nil), "node1")
	newcomer := cl.waitPod(t, "newcomer", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })

	after := cl.getPod(t, "default", "keeper")
	b, a := before.Status.ContainerStatuses[0], after.Status.ContainerStatuses[0]
	if after.UID != before.UID || after.Status.PodIP != before.Status.PodIP || a.ContainerID != b.ContainerID ||
		a.RestartCount != 1 || a.State.Running == nil {
		t.Errorf("before: %s %s\nafter: %s %s", describePod(before), b.ContainerID, describePod(after), a.ContainerID)
	}
	if newcomer.Status.PodIP == before.Status.PodIP {
		t.Errorf("the new pod got the adopted pod's IP %s", newcomer.Status.PodIP)
	}
	list, err := cl.client.Pods("default").List(context.Background(), client.ListOptions{})
	if err != nil || len(list.Items) != 2 {
		t.Errorf("pods after the restart: %d (%v), want 2", len(list.Items), err)
	}
}

func TestMultiNode(t *testing.T) {
	cl := startCluster(t)
	opts := cl.fastOptions("")
	opts.NodeCount, opts.NodeNamePrefix = 5, "hollow-"
	opts.PodCIDR = "10.244.1.0/24"
	startKubelet(t, opts)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		list, err := cl.client.Nodes().List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		ready := 0
		for _, n := range list.Items {
			if nodeCondition(n, api.NodeReady) == api.ConditionTrue {
				ready++
			}
		}
		return ready == 5, "not all 5 nodes Ready"
	})
	node, err := cl.client.Nodes().Get(context.Background(), "hollow-3", client.GetOptions{})
	if err != nil || node.Spec.PodCIDR != "10.244.3.0/24" {
		t.Fatalf("hollow-3: %v podCIDR=%q", err, node.Spec.PodCIDR)
	}
	for _, n := range []string{"hollow-1", "hollow-3", "hollow-5"} {
		cl.createBoundPod(t, simplePod("on-"+n, api.RestartPolicyAlways, nil), n)
	}
	pod := cl.waitPod(t, "on-hollow-3", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })
	if !strings.HasPrefix(pod.Status.PodIP, "10.244.3.") {
		t.Errorf("pod on hollow-3 has IP %s", pod.Status.PodIP)
	}
	cl.waitPod(t, "on-hollow-5", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })
}

// TestKubectlShowsNodesAndPods drives the real kubectl: nodes Ready, pods
// with their IP and node.
func TestKubectlShowsNodesAndPods(t *testing.T) {
	framework.RequireKubectl(t)
	cl := startCluster(t)
	opts := cl.fastOptions("node1")
	opts.PodCIDR = "10.244.1.0/24"
	startKubelet(t, opts)
	cl.createBoundPod(t, simplePod("web", api.RestartPolicyAlways, nil), "node1")
	pod := cl.waitPod(t, "web", func(p *api.Pod) bool { return podCondition(p, api.PodReady) == api.ConditionTrue })

	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		out := cl.api.Kubectl(t, "", "get", "nodes").Stdout
		return strings.Contains(out, "node1") && fieldsOfLine(out, "node1")[1] == "Ready", out
	})
	out := cl.api.MustKubectl(t, "get", "po", "-o", "wide")
	fields := fieldsOfLine(out, "web")
	// NAME READY STATUS RESTARTS AGE IP NODE NOMINATED-NODE READINESS-GATES
	if len(fields) < 7 || fields[1] != "1/1" || fields[2] != "Running" || fields[5] != pod.Status.PodIP || fields[6] != "node1" {
		t.Errorf("kubectl get po -o wide:\n%s", out)
	}
}

// fieldsOfLine returns the whitespace-separated fields of the line of out
// that starts with name (or ["", ""]).
func fieldsOfLine(out, name string) []string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == name {
			return f
		}
	}
	return []string{"", ""}
}

func nodeCondition(n *api.Node, t api.NodeConditionType) api.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitEvents waits until events with each reason exist for the pod.
func (cl *cluster) waitEvents(t *testing.T, pod string, reasons ...string) {
	t.Helper()
	cl.waitEventsUID(t, pod, "", reasons...)
}

func (cl *cluster) waitEventsUID(t *testing.T, pod, uid string, reasons ...string) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		list, err := cl.client.Events("default").List(context.Background(),
			client.ListOptions{FieldSelector: "involvedObject.name=" + pod})
		if err != nil {
			return false, err.Error()
		}
		seen := map[string]bool{}
		var all []string
		for _, e := range list.Items {
			if uid == "" || e.InvolvedObject.UID == uid {
				seen[e.Reason] = true
				all = append(all, e.Reason+": "+e.Message)
			}
		}
		for _, r := range reasons {
			if !seen[r] {
				return false, "events: " + strings.Join(all, "; ")
			}
		}
		return true, ""
	})
}
