package e2e

import (
	"strings"
	"testing"
)

// TestSchedulerVolumeBinding is the scheduler's VolumeBinding plugin as a
// user sees it with kubectl, on a cluster with the persistentvolume-binder
// and no PersistentVolumes:
//   - a pod whose claim has no volume stays Pending, with upstream's
//     FailedScheduling event and PodScheduled condition;
//   - a pod naming a claim that does not exist stays Pending with the
//     NotFound message;
//   - once a matching volume is created (pinned by its nodeAffinity to
//     node2), the binder binds the claim, the claim's update sends
//     the pod back to the scheduler, and the pod runs on that node.
func TestSchedulerVolumeBinding(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)

	applyYAML(t, c, `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: db
spec:
  containers:
  - name: db
    image: nginx
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: data
---
apiVersion: v1
kind: Pod
metadata:
  name: no-claim
spec:
  containers:
  - name: app
    image: nginx
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: missing
`)

	// What kube-scheduler 1.32 prints, without its preemption sentence
	// (kplane has no preemption).
	const (
		unbound = "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims."
		missing = `0/3 nodes are available: persistentvolumeclaim "missing" not found.`
	)
	for pod, want := range map[string]string{"db": unbound, "no-claim": missing} {
		waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "Warning default-scheduler "+want },
			"get", "events", "--field-selector", "involvedObject.name="+pod+",reason=FailedScheduling",
			"-o", "jsonpath={.items[*].type} {.items[*].reportingComponent} {.items[*].message}")
		waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "Pending||False Unschedulable "+want },
			"get", "pod", pod, "-o", `jsonpath={.status.phase}|{.spec.nodeName}|{.status.conditions[?(@.type=="PodScheduled")].status} {.status.conditions[?(@.type=="PodScheduled")].reason} {.status.conditions[?(@.type=="PodScheduled")].message}`)
	}
	if out := c.MustKubectl(t, "get", "pvc", "data", "-o", "jsonpath={.status.phase}"); out != "Pending" {
		t.Fatalf("claim data is %q, want Pending (no volume exists)", out)
	}

	// A volume the claim fits, reachable only from node2 (the cluster is
	// the control-plane node, node1 and node2).
	applyYAML(t, c, `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-local
spec:
  accessModes: [ReadWriteOnce]
  capacity:
    storage: 1Gi
  hostPath:
    path: /tmp/pv-local
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - key: kubernetes.io/hostname
          operator: In
          values: [node2]
`)
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "Bound pv-local" },
		"get", "pvc", "data", "-o", "jsonpath={.status.phase} {.spec.volumeName}")
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "Running node2" },
		"get", "pod", "db", "-o", "jsonpath={.status.phase} {.spec.nodeName}")
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return strings.Contains(out, "Successfully assigned default/db to node2")
	}, "get", "events", "--field-selector", "involvedObject.name=db,reason=Scheduled", "-o", "jsonpath={.items[*].message}")

	// The pod whose claim does not exist is still waiting.
	if out := c.MustKubectl(t, "get", "pod", "no-claim", "-o", "jsonpath={.status.phase}|{.spec.nodeName}"); out != "Pending|" {
		t.Errorf("pod no-claim is %q, want Pending and unbound", out)
	}
}
