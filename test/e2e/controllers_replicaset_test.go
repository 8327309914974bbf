package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/audit"
	"kplane/test/framework"
)

// TestControllersReplicaSetKeepsItsPods is the seed's ReplicaSet lesson
// (examples/nginx-rs.yaml, ng-rs with 3 replicas selecting
// replicaset=test), as a user sees it with kubectl:
//   - the RS creates 3 pods named ng-rs-<5 random chars>, all Running;
//   - a deleted pod is replaced by a new one with another name;
//   - a pod relabelled out of the selector is released (its controller
//     ownerReference removed, it keeps running) and replaced;
//   - `kubectl scale rs` to 5 and then to 2 converges to that many pods.
func TestControllersReplicaSetKeepsItsPods(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	const selector = "replicaset=test"
	nameRE := regexp.MustCompile(`^ng-rs-` + podNameSuffix + `$`)

	c.MustKubectl(t, "apply", "-f", examplePath(t, "nginx-rs.yaml"))
	pods := waitRunningPods(t, c, "default", selector, 3)
	if bad := notMatching(nameRE, pods); len(bad) > 0 {
		t.Errorf("pod names %v do not match ng-rs-<5 chars of bcdfghjklmnpqrstvwxz2456789>", bad)
	}
	// kubectl get rs shows the seed's columns converged.
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return regexp.MustCompile(`(?m)^ng-rs\s+3\s+3\s+3\s+\S+$`).MatchString(out)
	}, "get", "rs", "ng-rs", "--no-headers")

	// 1. Delete one pod: a new one (another name) takes its place.
	victim := pods[0]
	c.MustKubectl(t, "delete", "pod", victim, "--wait=false")
	after := waitRunningPodsWithout(t, c, selector, 3, victim)
	if bad := notMatching(nameRE, after); len(bad) > 0 {
		t.Errorf("replacement pod names %v do not match the pattern", bad)
	}
	if fresh := difference(after, pods); len(fresh) != 1 {
		t.Errorf("after deleting %s the pods are %v (before %v): want exactly one new name", victim, after, pods)
	}

	// 2. Relabel one pod out of the selector: the RS releases it (no
	// controller ownerReference any more) and creates a replacement.
	released := after[0]
	c.MustKubectl(t, "label", "pod", released, "replicaset=debug", "--overwrite")
	final := waitRunningPodsWithout(t, c, selector, 3, released)
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "" },
		"get", "pod", released, "-o", "jsonpath={.metadata.ownerReferences}")
	if status := podTable(c.MustKubectl(t, "get", "pod", released, "--no-headers"))[released]; status != "Running" {
		t.Errorf("the released pod %s is %q, want it left Running", released, status)
	}
	if fresh := difference(final, after); len(fresh) != 1 {
		t.Errorf("after relabelling %s the RS's pods are %v (before %v): want exactly one replacement", released, final, after)
	}
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return regexp.MustCompile(`(?m)^ng-rs\s+3\s+3\s+3\s+\S+$`).MatchString(out)
	}, "get", "rs", "ng-rs", "--no-headers")

	// 3. Scale up to 5, then down to 2.
	c.MustKubectl(t, "scale", "rs", "ng-rs", "--replicas=5")
	five := waitRunningPods(t, c, "default", selector, 5)
	if bad := notMatching(nameRE, five); len(bad) > 0 {
		t.Errorf("pod names %v after scaling up do not match the pattern", bad)
	}
	c.MustKubectl(t, "scale", "rs", "ng-rs", "--replicas=2")
	waitRunningPods(t, c, "default", selector, 2)
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return regexp.MustCompile(`(?m)^ng-rs\s+2\s+2\s+2\s+\S+$`).MatchString(out)
	}, "get", "rs", "ng-rs", "--no-headers")
	// The released pod was never counted again: it is still there, alone
	// under its new label.
	if got := strings.TrimSpace(c.MustKubectl(t, "get", "pods", "-l", "replicaset=debug", "-o", "name")); got != "pod/"+released {
		t.Errorf("pods labelled replicaset=debug = %q, want only pod/%s", got, released)
	}

	// 4. The controller acted as its own ServiceAccount
	// (--use-service-account-credentials): the apiserver's audit log shows
	// the pods created by system:serviceaccount:kube-system:replicaset-controller.
	if creator := podCreators(t, filepath.Join(c.Dir, "logs", "audit.log")); !slices.Equal(creator, []string{"system:serviceaccount:kube-system:replicaset-controller"}) {
		t.Errorf("pods in default were created by %v, want only the replicaset-controller ServiceAccount", creator)
	}
}

// podCreators reads an audit log and returns who created pods in default,
// sorted and without repeats.
func podCreators(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the audit log: %v", err)
	}
	var users []string
	for _, line := range strings.Split(string(data), "\n") {
		var e audit.Event
		if line == "" || json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		if e.Verb == "create" && e.Stage == audit.StageResponseComplete && e.ObjectRef != nil &&
			e.ObjectRef.Resource == "pods" && e.ObjectRef.Subresource == "" && e.ObjectRef.Namespace == "default" &&
			e.ResponseStatus != nil && e.ResponseStatus.Code == 201 && !slices.Contains(users, e.User.Username) {
			users = append(users, e.User.Username)
		}
	}
	slices.Sort(users)
	return users
}

// waitRunningPodsWithout waits for exactly n Running pods matching selector
// in default, none of them named gone.
func waitRunningPodsWithout(t *testing.T, c *framework.LocalCluster, selector string, n int, gone string) []string {
	t.Helper()
	out := waitKubectl(t, c, controllersTimeout, func(out string) bool {
		pods := podTable(out)
		_, still := pods[gone]
		return !still && allRunning(pods, n)
	}, "get", "pods", "-l", selector, "--no-headers")
	return sortedKeys(podTable(out))
}

// difference returns the names in a that are not in b.
func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
