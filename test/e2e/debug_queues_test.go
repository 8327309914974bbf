package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// faultCtl runs the built ctl against cluster c's data dir and fails the
// test unless it exits 0.
func faultCtl(t *testing.T, bin string, c *framework.LocalCluster, args ...string) string {
	t.Helper()
	code, out := runCtl(t, bin, append(args, "--data-dir", c.Dir)...)
	if code != 0 {
		t.Fatalf("ctl %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// ctlQueue reads the controller-manager's queue called name from `ctl
// queues -o json`.
func ctlQueue(t *testing.T, bin string, c *framework.LocalCluster, component, name string) debug.QueueState {
	t.Helper()
	out := faultCtl(t, bin, c, "queues", "--component", component, "-o", "json")
	var all []struct {
		Component string             `json:"component"`
		Queues    []debug.QueueState `json:"queues"`
		Error     string             `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("decode ctl queues -o json: %v\n%s", err, out)
	}
	for _, cq := range all {
		for _, q := range cq.Queues {
			if q.Name == name {
				return q
			}
		}
	}
	return debug.QueueState{Name: name}
}

// keyIn returns key's entry in keys.
func keyIn(keys []debug.QueueKey, key string) (debug.QueueKey, bool) {
	i := slices.IndexFunc(keys, func(k debug.QueueKey) bool { return k.Key == key })
	if i < 0 {
		return debug.QueueKey{}, false
	}
	return keys[i], true
}

func queuesDeployment(name string) *api.Deployment {
	replicas := int32(1)
	labels := map[string]string{"app": name}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
}

// TestQueuesShowAHeldSyncAndItsRetries is issue 13's Done-when 3: `ctl
// queues` shows the deployment controller's key in processing while an
// api-error fault holds its ReplicaSet create, and, while another fault
// fails those creates with 500, the key waiting with retries and a
// rate-limit delay; once that rule expires the rollout completes.
func TestQueuesShowAHeldSyncAndItsRetries(t *testing.T) {
	bin := requireControllerManager(t)
	c := framework.StartCluster(t, nil)
	kc := c.Client(t)
	ctx := context.Background()

	// 1. Hold every ReplicaSet create: the deployment controller's sync of
	// the new Deployment waits inside its create, key in PROCESSING.
	out := faultCtl(t, bin, c, "fault", "api-error", "--resource", "replicasets", "--verb", "create", "--delay", "2m", "--for", "5m")
	if !strings.Contains(out, "fault injected (rule 1): the apiserver holds every create of replicasets for 2m0s, then serves it") ||
		!strings.Contains(out, "stays in PROCESSING") {
		t.Errorf("ctl fault api-error --delay printed:\n%s", out)
	}
	if _, err := kc.Deployments("default").Create(ctx, queuesDeployment("web"), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		q := ctlQueue(t, bin, c, "controller-manager", "deployment")
		k, ok := keyIn(q.Processing, "default/web")
		return ok && !k.Since.IsZero(), fmt.Sprintf("deployment queue: %+v", q)
	})
	wide := faultCtl(t, bin, c, "queues", "--component", "controller-manager", "-o", "wide")
	if !containsRow(wide, "deployment", "default/web", "processing") {
		t.Errorf("ctl queues -o wide shows no processing row for default/web:\n%s", wide)
	}

	// 2. Fail the next creates with 500 instead, and release the held one
	// by clearing the hold: the first ReplicaSet is made.
	faultCtl(t, bin, c, "fault", "api-error", "--clear")
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		list, err := kc.ReplicaSets("default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
		return err == nil && len(list.Items) == 1, fmt.Sprintf("replica sets: %v, %v", list, err)
	})
	out = faultCtl(t, bin, c, "fault", "api-error", "--resource", "replicasets", "--verb", "create", "--code", "500", "--for", "8s")
	if !strings.Contains(out, "fails every create of replicasets with 500 InternalError, for 8s") {
		t.Errorf("ctl fault api-error --code 500 printed:\n%s", out)
	}
	// A new pod template needs a new ReplicaSet, whose create now fails.
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}`)
	if _, err := kc.Deployments("default").Patch(ctx, "web", client.StrategicMergePatchType, patch, client.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 8*time.Second, func() (bool, string) {
		q := ctlQueue(t, bin, c, "controller-manager", "deployment")
		k, ok := keyIn(q.Waiting, "default/web")
		return ok && k.Retries > 0 && k.Delay > 0, fmt.Sprintf("deployment queue: %+v", q)
	})

	// 3. The rule expires; the next retry creates the ReplicaSet and the
	// rollout completes, its key forgotten (retries back to 0).
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		d, err := kc.Deployments("default").Get(ctx, "web", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		s := d.Status
		return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == 1 && s.Replicas == 1 && s.AvailableReplicas == 1,
			fmt.Sprintf("deployment status %+v (generation %d)", s, d.Generation)
	})
	q := ctlQueue(t, bin, c, "controller-manager", "deployment")
	for _, keys := range [][]debug.QueueKey{q.Queued, q.Processing, q.Waiting} {
		if k, ok := keyIn(keys, "default/web"); ok && k.Retries > 0 {
			t.Errorf("after the rollout default/web still has %d retries: %+v", k.Retries, q)
		}
	}
	if out := faultCtl(t, bin, c, "fault", "api-error"); out != "No api-error rules are active.\n" {
		t.Errorf("ctl fault api-error after expiry printed %q", out)
	}
}

// containsRow reports whether some line of table starts with the given
// columns.
func containsRow(table string, columns ...string) bool {
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) >= len(columns) && slices.Equal(f[:len(columns)], columns) {
			return true
		}
	}
	return false
}
