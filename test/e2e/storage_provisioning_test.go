package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestStorageDefaultClassProvisioning is dynamic provisioning as a kind
// user sees it, with the real kubectl on a `ctl up` cluster (default
// options, so with the default StorageClass):
//   - `kubectl get sc` shows "standard (default)" with kplane's
//     provisioner, Delete and WaitForFirstConsumer;
//   - a claim with no class and no volume gets the class, waits for its
//     first consumer, and once a pod using it is scheduled is Bound to a
//     new pvc-<uid> volume (a directory under the data dir, pinned to the
//     pod's node) and the pod runs;
//   - deleting the pod and the claim deletes the volume and its
//     directory (reclaim policy Delete);
//   - the seed's StatefulSet (examples/ngix-sts.yaml, volumeClaimTemplates
//     and no hand-made volumes) runs both replicas, each claim Bound to its
//     own pvc-… volume.
func TestStorageDefaultClassProvisioning(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	requireControllerManager(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes = 2 })

	waitKubectl(t, c, controllersTimeout, regexp.MustCompile(
		`(?m)^standard \(default\)\s+kplane\.io/hostpath\s+Delete\s+WaitForFirstConsumer\s+false\s`).MatchString, "get", "sc")

	applyYAML(t, c, `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`)
	if class := c.MustKubectl(t, "get", "pvc", "data", "-o", "jsonpath={.spec.storageClassName}"); class != "standard" {
		t.Fatalf("claim's storageClassName = %q, want the default class standard", class)
	}
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return strings.Contains(out, "waiting for first consumer to be created before binding")
	}, "get", "events", "--field-selector", "involvedObject.name=data,reason=WaitForFirstConsumer")

	applyYAML(t, c, `apiVersion: v1
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
`)
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "Running" }, "get", "pod", "db", "-o", "jsonpath={.status.phase}")
	node := c.MustKubectl(t, "get", "pod", "db", "-o", "jsonpath={.spec.nodeName}")
	uid := c.MustKubectl(t, "get", "pvc", "data", "-o", "jsonpath={.metadata.uid}")
	pvName := "pvc-" + uid
	waitKubectl(t, c, controllersTimeout, regexp.MustCompile(`(?m)^data\s+Bound\s+`+pvName+`\s+1Gi\s+RWO\s+standard\s`).MatchString, "get", "pvc")
	if got := c.MustKubectl(t, "get", "pvc", "data", "-o", `jsonpath={.metadata.annotations.volume\.kubernetes\.io/selected-node}`); got != node {
		t.Errorf("claim's selected-node = %q, want the pod's node %q", got, node)
	}
	pv := c.MustKubectl(t, "get", "pv", pvName, "-o",
		`jsonpath={.spec.hostPath.path}|{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}|{.spec.persistentVolumeReclaimPolicy}|{.metadata.annotations.pv\.kubernetes\.io/provisioned-by}`)
	volumeDir := filepath.Join(c.Dir, "volumes", pvName)
	if want := volumeDir + "|" + node + "|Delete|kplane.io/hostpath"; pv != want {
		t.Errorf("volume %s = %q, want %q", pvName, pv, want)
	}
	if fi, err := os.Stat(volumeDir); err != nil || !fi.IsDir() {
		t.Errorf("volume directory %s: %v", volumeDir, err)
	}

	c.MustKubectl(t, "delete", "pod", "db", "--wait=false")
	c.MustKubectl(t, "delete", "pvc", "data", "--wait=false")
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return !strings.Contains(out, pvName) }, "get", "pv", "--no-headers")
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		_, err := os.Stat(volumeDir)
		return os.IsNotExist(err), "volume directory still there: " + volumeDir
	})

	c.MustKubectl(t, "apply", "-f", examplePath(t, "ng-headless-svc.yaml"), "-f", examplePath(t, "ngix-sts.yaml"))
	waitRunningPods(t, c, "default", "app=ng-headless", 2)
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		bound := regexp.MustCompile(`(?m)^vol-ng-headless-[01]\s+Bound\s+pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+standard\s`)
		return len(bound.FindAllString(out, -1)) == 2
	}, "get", "pvc")
}
