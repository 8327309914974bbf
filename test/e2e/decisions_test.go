package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"kplane/pkg/debug"
	"kplane/test/framework"
)

// TestDecisionRecords: on a `ctl up` cluster, the seeds' Job leaves its
// decisions in the components' journals as `ctl why` reads them — the job
// controller's first step ("… → create 2") and its completion, a kubelet's
// admission of a pod, and, once the Job is deleted, the garbage
// collector's deletion of its pods — each naming the upstream file it
// mirrors.
func TestDecisionRecords(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	admin, _ := adminDebugClient(t, c.KubeconfigPath())
	applyYAML(t, c, piJobManifest)
	c.MustKubectl(t, "wait", "--for=condition=complete", "job/pi", "--timeout=60s")

	jobs := decisionsOf(t, admin, c.Dir, "controller-manager", "jobs.batch", "default/pi")
	expectDecision(t, jobs, "job", "Job wants 5 completions, parallelism 2: 0 succeeded, 0 failed (backoffLimit 6), 0 active → create 2",
		"pkg/controller/job/job_controller.go")
	expectDecision(t, jobs, "job", "→ success criteria met, no pod left running → condition Complete", "pkg/controller/job/job_controller.go")

	pod := strings.Fields(c.MustKubectl(t, "get", "pods", "-l", "batch.kubernetes.io/job-name=pi", "--no-headers", "-o", "custom-columns=N:.metadata.name,NODE:.spec.nodeName"))
	if len(pod) < 2 {
		t.Fatalf("no pod of job pi: %q", pod)
	}
	name, node := pod[0], pod[1]
	kubelet := decisionsOf(t, admin, c.Dir, "kubelet-"+node, "pods", "default/"+name)
	expectDecision(t, kubelet, "kubelet", "pod bound to "+node+" → admitted", "pkg/kubelet/kubelet.go")

	c.MustKubectl(t, "delete", "job", "pi") // background: the collector deletes the pods
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		records := decisionsOf(t, admin, c.Dir, "controller-manager", "pods", "default/"+name)
		for _, r := range records {
			if r.Actor == "garbagecollector" && r.Message == fmt.Sprintf("owner Job pi is gone → delete Pod %s (Background)", name) &&
				r.Source == "pkg/controller/garbagecollector/garbagecollector.go" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("decisions about pod %s: %+v", name, records)
	})
}

// decisionsOf reads the decision records about resource/key from the
// journal of component in the cluster at dir.
func decisionsOf(t *testing.T, admin *debug.Client, dir, component, resource, key string) []debug.Record {
	t.Helper()
	endpoints, err := debug.ReadEndpoints(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range endpoints {
		if e.Component != component {
			continue
		}
		var out []debug.Record
		err := admin.Records(context.Background(), e, debug.RecordQuery{Types: debug.TypeDecision, Resource: resource, Key: key},
			func(r debug.Record) error {
				out = append(out, r)
				return nil
			})
		if err != nil {
			t.Fatalf("records of %s: %v", component, err)
		}
		return out
	}
	t.Fatalf("no debug endpoint of %s in %v", component, endpoints)
	return nil
}

// expectDecision fails unless one of records is by actor, contains
// message and cites source.
func expectDecision(t *testing.T, records []debug.Record, actor, message, source string) {
	t.Helper()
	for _, r := range records {
		if r.Actor == actor && strings.Contains(r.Message, message) && r.Source == source {
			return
		}
	}
	var lines []string
	for _, r := range records {
		lines = append(lines, fmt.Sprintf("%s: %s [%s]", r.Actor, r.Message, r.Source))
	}
	t.Errorf("no decision by %s containing %q citing %s among:\n  %s", actor, message, source, strings.Join(lines, "\n  "))
}
