package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// piJobManifest is the seeds' Job (examples/job.yaml): parallelism 2,
// completions 5. On the simulated runtime a container of a Never pod exits
// 0 after run-seconds, so perl is never run (this machine's perl dies on
// bpi(2000), see kubelet_process_test.go) and the pods finish in half a
// second.
const piJobManifest = `apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  parallelism: 2
  completions: 5
  template:
    metadata:
      annotations:
        sim.kplane.io/run-seconds: "500ms"
    spec:
      containers:
        - name: pi
          image: perl
          command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
`

// TestControllersJobRunsToCompletion is the seeds' Job lesson as a user sees
// it: five pods pi-xxxxx run two at a time and end Completed, `kubectl get
// jobs` shows Complete 5/5, and `kubectl wait --for=condition=complete`
// returns.
func TestControllersJobRunsToCompletion(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	applyYAML(t, c, piJobManifest)

	c.MustKubectl(t, "wait", "--for=condition=complete", "job/pi", "--timeout=60s")
	out := waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return regexp.MustCompile(`(?m)^pi\s+Complete\s+5/5\s+\S+\s+\S+$`).MatchString(out)
	}, "get", "jobs", "pi", "--no-headers")
	if strings.Contains(out, "Running") {
		t.Errorf("kubectl get jobs: %s", out)
	}

	pods := podTable(c.MustKubectl(t, "get", "pods", "-l", "batch.kubernetes.io/job-name=pi", "--no-headers"))
	if len(pods) != 5 {
		t.Fatalf("pods of job pi: %v, want 5", pods)
	}
	nameRE := regexp.MustCompile(`^pi-` + podNameSuffix + `$`)
	for name, status := range pods {
		if !nameRE.MatchString(name) || status != "Completed" {
			t.Errorf("pod %s is %s, want pi-<5 chars> Completed", name, status)
		}
	}
	events := c.MustKubectl(t, "get", "events", "--field-selector", "involvedObject.kind=Job,involvedObject.name=pi")
	for _, want := range []string{"SuccessfulCreate", "Created pod: pi-", "Completed", "Job completed"} {
		if !strings.Contains(events, want) {
			t.Errorf("events of job pi lack %q:\n%s", want, events)
		}
	}
}
