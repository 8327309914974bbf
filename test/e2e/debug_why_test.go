package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"kplane/pkg/debug"
	"kplane/test/framework"
)

// whyDeploymentYAML is a 10-replica Deployment at maxSurge 25 % and
// maxUnavailable 25 % whose pods have a readiness probe; the simulated
// runtime answers it with the template's sim.kplane.io/readiness
// annotation, readiness.
func whyDeploymentYAML(readiness string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 10
  selector:
    matchLabels:
      app: web
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%%
      maxUnavailable: 25%%
  template:
    metadata:
      labels:
        app: web
      annotations:
        sim.kplane.io/readiness: %q
    spec:
      containers:
      - name: web
        image: nginx:1.27
        readinessProbe:
          httpGet: {path: /healthz, port: 80}
          periodSeconds: 1
`, readiness)
}

// whyCtl runs the built `ctl why` against cluster c and returns its
// output, failing the test unless it exits 0.
func whyCtl(t *testing.T, c *framework.LocalCluster, args ...string) string {
	t.Helper()
	args = append([]string{"why", "--kubeconfig", filepath.Join(c.Dir, "kubeconfig"), "--data-dir", c.Dir}, args...)
	code, out := runCtl(t, framework.BuildBinaries(t), args...)
	if code != 0 {
		t.Fatalf("ctl %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// whyRecords runs `ctl why … -o json` and decodes the records.
func whyRecords(t *testing.T, c *framework.LocalCluster, args ...string) []debug.Record {
	t.Helper()
	out := whyCtl(t, c, append(args, "-o", "json")...)
	var records []debug.Record
	if err := json.Unmarshal([]byte(out), &records); err != nil {
		t.Fatalf("ctl why %v -o json printed %q: %v", args, out, err)
	}
	return records
}

// The lines of a deployment decision that carry its arithmetic.
var (
	growsRE    = regexp.MustCompile(`max total = replicas (\d+) \+ maxSurge (\d+) = (\d+), counted (\d+) → grows by min\((\d+) − (\d+), (\d+) − (\d+)\) = (\d+): (\d+) → (\d+)$`)
	mayRemove  = regexp.MustCompile(`min available = replicas (\d+) − maxUnavailable (\d+) = (\d+); may remove (\d+) asked − (\d+) min available − (\d+) new not available = (-?\d+)$`)
	oldScaleRE = regexp.MustCompile(`: (\d+) available of all ReplicaSets, (\d+) above min (\d+) \(oldest first\): (\d+) → (\d+)$`)
)

// atoi parses the numbers the regexps matched.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

// checkRolloutArithmetic checks every arithmetic line of a deployment
// decision against 10 replicas, maxSurge 3, maxUnavailable 2, and returns
// how many lines it checked.
func checkRolloutArithmetic(t *testing.T, r debug.Record) (checked int) {
	t.Helper()
	for _, line := range r.Lines {
		if growsRE.MatchString(line) || mayRemove.MatchString(line) || oldScaleRE.MatchString(line) {
			checked++
		}
		if m := growsRE.FindStringSubmatch(line); m != nil {
			n := make([]int, len(m))
			for i := 1; i < len(m); i++ {
				n[i] = atoi(t, m[i])
			}
			replicas, surge, maxTotal, counted, a, b, c, from, by, oldSize, newSize := n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], n[10], n[11]
			if replicas != 10 || surge != 3 || maxTotal != 13 || a != maxTotal || b != counted || c != replicas || from != oldSize ||
				by != min(maxTotal-counted, replicas-oldSize) || newSize != oldSize+by {
				t.Errorf("scale-up arithmetic does not add up: %q", line)
			}
		}
		if m := mayRemove.FindStringSubmatch(line); m != nil {
			replicas, unavailable, minAvailable, asked, minAgain, newUnavailable, budget :=
				atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3]), atoi(t, m[4]), atoi(t, m[5]), atoi(t, m[6]), atoi(t, m[7])
			if replicas != 10 || unavailable != 2 || minAvailable != 8 || minAgain != 8 || budget != asked-minAvailable-newUnavailable {
				t.Errorf("scale-down budget does not add up: %q", line)
			}
		}
		if m := oldScaleRE.FindStringSubmatch(line); m != nil {
			available, above, minAvailable, from, to := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3]), atoi(t, m[4]), atoi(t, m[5])
			if minAvailable != 8 || above != available-minAvailable || from-to > above || to < 0 {
				t.Errorf("old ReplicaSet scale-down does not add up: %q", line)
			}
		}
	}
	return checked
}

// TestDebugWhy drives issue 13's `ctl why` on a real cluster: a rollout of
// 10 replicas at 25 %/25 % to a template whose pods never become ready
// stays mid-way, and `ctl why deploy/web` shows the rounded fenceposts and
// the steps that got it there, each adding up; `ctl why pod/x` shows every
// node's filter verdict and scores that add up to the chosen total; the
// ReplicaSets say what they created and deleted.
func TestDebugWhy(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)

	applyYAML(t, c, whyDeploymentYAML("succeed"))
	rolloutStatus(t, c, "web")
	oldRS := strings.TrimPrefix(strings.TrimSpace(c.MustKubectl(t, "get", "rs", "-l", "app=web", "-o", "name")), "replicaset.apps/")

	// The new template's pods never pass their readiness probe: the rollout
	// takes what maxSurge and maxUnavailable allow and stops, new 5 and
	// old 8 (13 = 10 + 3 pods, 8 = 10 − 2 of them available).
	applyYAML(t, c, whyDeploymentYAML("fail"))
	var latest debug.Record
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		for _, r := range whyRecords(t, c, "deploy/web") {
			if r.Actor == "deployment" {
				latest = r
			}
		}
		return latest.Values["newReplicasTo"] == "5" && latest.Values["oldReplicasTo"] == "8" &&
			slicesContain(latest.Lines, "may remove 13 asked − 8 min available − 5 new not available = 0"), fmt.Sprintf("latest decision %+v", latest)
	})
	newRS := latest.Values["newReplicaSet"]

	text := whyCtl(t, c, "deploy/web")
	for _, want := range []string{
		"deployment in controller-manager, ",
		"  replicas 10, maxSurge 25% → 3 (rounded up), maxUnavailable 25% → 2 (rounded down): new ReplicaSet 5, old 8\n",
		"    new ReplicaSet " + newRS + " cannot grow: max total = replicas 10 + maxSurge 3 = 13, counted 13\n",
		"    old ReplicaSets: min available = replicas 10 − maxUnavailable 2 = 8; may remove 13 asked − 8 min available − 5 new not available = 0\n",
		"  mirrors upstream pkg/controller/deployment/rolling.go\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ctl why deploy/web lacks %q:\n%s", want, text)
		}
	}

	// Every decision since the template changed, in order: the first one
	// creates the new ReplicaSet at 3 and takes the old one 10 → 8; then
	// the new one grows to 5 as the old pods go; each step's arithmetic
	// adds up and the sizes carry on from one decision to the next.
	var steps []string
	newSize, oldSize, checked := 0, 10, 0
	for _, r := range whyRecords(t, c, "deploy/web", "--all") {
		if r.Actor != "deployment" || r.Values["newReplicaSet"] != newRS {
			continue
		}
		checked += checkRolloutArithmetic(t, r)
		from, to := atoi(t, r.Values["newReplicasFrom"]), atoi(t, r.Values["newReplicasTo"])
		oldFrom, oldTo := atoi(t, r.Values["oldReplicasFrom"]), atoi(t, r.Values["oldReplicasTo"])
		if r.Values["maxSurge"] != "3" || r.Values["maxUnavailable"] != "2" || from != newSize || oldFrom != oldSize || to > 5 || to+oldTo > 13 || oldTo < 8 {
			t.Errorf("decision %q (values %v) does not follow new %d, old %d within 13 pods, 8 available", r.Message, r.Values, newSize, oldSize)
		}
		if from != to || oldFrom != oldTo {
			steps = append(steps, fmt.Sprintf("new %d→%d old %d→%d", from, to, oldFrom, oldTo))
		}
		newSize, oldSize = to, oldTo
	}
	if all := whyCtl(t, c, "deploy/web", "--all"); !strings.Contains(all,
		"\n  replicas 10, maxSurge 25% → 3 (rounded up), maxUnavailable 25% → 2 (rounded down): new ReplicaSet 0 → 3, old 10 → 8\n") {
		t.Errorf("ctl why deploy/web --all lacks the first step:\n%s", all)
	}
	if checked < 3 {
		t.Errorf("only %d lines of arithmetic were checked; the line formats must have changed", checked)
	}
	if len(steps) < 2 || steps[0] != "new 0→3 old 10→8" || newSize != 5 || oldSize != 8 {
		t.Errorf("rollout steps %q ending at new %d old %d, want new 0→3 old 10→8 first and new 5, old 8 at the end", steps, newSize, oldSize)
	}

	// The ReplicaSets: the old one deleted 2 pods, naming them and why;
	// the new one created its pods in slow-start batches.
	var deletes debug.Record
	for _, r := range whyRecords(t, c, "rs/"+oldRS, "--all") {
		if strings.HasPrefix(r.Message, "ReplicaSet wants 8, has 10: delete 2: ") {
			deletes = r
		}
	}
	if len(deletes.Lines) != 2 || deletes.Source != "pkg/controller/replicaset/replica_set.go" {
		t.Errorf("old ReplicaSet %s: no decision deleting 2 pods with a reason each: %+v", oldRS, deletes)
	}
	for _, line := range deletes.Lines {
		victim, reason, _ := strings.Cut(line, ": ")
		if !strings.Contains(deletes.Message, victim) || !strings.Contains(reason, " kept ") {
			t.Errorf("deletion line %q does not name a victim of %q and the pod kept", line, deletes.Message)
		}
	}
	if out := whyCtl(t, c, "rs/"+newRS, "--all"); !strings.Contains(out, "ReplicaSet wants 3, has 0: create 3 (slow start batches 1, 2)") {
		t.Errorf("ctl why rs/%s --all lacks the first create:\n%s", newRS, out)
	}

	// A pod: every node's verdict, the tainted control-plane filtered out
	// by TaintToleration, the workers' scores adding up, the best chosen.
	pod := strings.TrimPrefix(strings.Fields(c.MustKubectl(t, "get", "pods", "-l", "app=web", "-o", "name"))[0], "pod/")
	var scheduled []debug.Record
	for _, r := range whyRecords(t, c, "pod/"+pod) {
		if r.Actor == "scheduler" {
			scheduled = append(scheduled, r)
		}
	}
	if len(scheduled) != 1 {
		t.Fatalf("ctl why pod/%s: scheduler decisions %+v, want the latest one", pod, scheduled)
	}
	checkSchedulerTable(t, scheduled[0])
	if out := whyCtl(t, c, "pod/"+pod); !strings.Contains(out, "    control-plane: filtered out by TaintToleration: node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }\n") {
		t.Errorf("ctl why pod/%s lacks the control-plane's verdict:\n%s", pod, out)
	}

	// A pod no node fits says what its FailedScheduling event says.
	applyYAML(t, c, `apiVersion: v1
kind: Pod
metadata:
  name: nowhere
spec:
  nodeSelector:
    disk: ssd
  containers:
  - name: app
    image: busybox
`)
	want := "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector."
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		out := whyCtl(t, c, "pod/nowhere")
		return strings.Contains(out, "  "+want+"\n") && strings.Contains(out, "    node1: filtered out by NodeAffinity: node(s) didn't match Pod's node affinity/selector\n"), out
	})
}

// checkSchedulerTable checks a scheduling decision's per-node table: one
// line per node of the cluster, the control-plane filtered out, each
// feasible node's weighted scores summing to its total, the chosen node's
// total the highest and the one the message and values give.
func checkSchedulerTable(t *testing.T, r debug.Record) {
	t.Helper()
	chosen := r.Values["node"]
	best := int64(-1)
	seen := map[string]bool{}
	for _, line := range r.Lines {
		node, rest, _ := strings.Cut(line, ": ")
		switch {
		case strings.HasPrefix(rest, "filtered out by "):
			seen[node] = true
			if node != "control-plane" || !strings.HasPrefix(rest, "filtered out by TaintToleration: ") {
				t.Errorf("unexpected verdict %q", line)
			}
		case strings.HasPrefix(rest, "feasible: "):
			seen[node] = true
			terms, totalText, ok := strings.Cut(strings.TrimPrefix(rest, "feasible: "), " = ")
			if !ok {
				t.Fatalf("line %q has no total", line)
			}
			total, err := strconv.ParseInt(strings.TrimSuffix(totalText, ", chosen"), 10, 64)
			if err != nil {
				t.Fatalf("line %q: total %q", line, totalText)
			}
			var sum int64
			plugins := 0
			for _, term := range strings.Split(terms, " + ") {
				var plugin string
				var score, weight int64
				if _, err := fmt.Sscanf(term, "%s %d×%d", &plugin, &score, &weight); err != nil {
					t.Fatalf("line %q: term %q: %v", line, term, err)
				}
				sum += score * weight
				plugins++
			}
			if sum != total || plugins != 4 || r.Values["total/"+node] != strconv.FormatInt(total, 10) {
				t.Errorf("line %q: %d terms adding up to %d, the line says %d", line, plugins, sum, total)
			}
			if strings.HasSuffix(totalText, ", chosen") != (node == chosen) {
				t.Errorf("line %q: the chosen node is %s", line, chosen)
			}
			best = max(best, total)
		}
	}
	if !seen["control-plane"] || !seen["node1"] || !seen["node2"] {
		t.Errorf("the table covers %v, want control-plane, node1 and node2:\n%s", seen, strings.Join(r.Lines, "\n"))
	}
	if r.Values["total"] != strconv.FormatInt(best, 10) || !strings.HasPrefix(r.Message, chosen+": ") ||
		!strings.Contains(r.Message, " = "+r.Values["total"]+", chosen of 2 feasible") || r.Source != "pkg/scheduler/schedule_one.go" {
		t.Errorf("decision %q (values %v): the chosen node's total is not the best, %d", r.Message, r.Values, best)
	}
}

// slicesContain reports whether one of lines contains part.
func slicesContain(lines []string, part string) bool {
	for _, l := range lines {
		if strings.Contains(l, part) {
			return true
		}
	}
	return false
}
