package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestControllersDeploymentScaleAsTheSeed replays the seed's scaling
// session on examples/nginx-dep.yaml (ng-dep, 4 replicas):
// `kubectl scale deployment ng-dep --replicas=3`, 4, 3, each time waiting
// for `kubectl get deploy ng-dep` to show READY n/n, UP-TO-DATE n and
// AVAILABLE n; `kubectl get rs` shows the one ReplicaSet ng-dep-<hash>; and
// `kubectl describe deployment ng-dep` lists the ScalingReplicaSet events
// in today's wording ("Scaled up replica set ng-dep-<hash> from 0 to 4",
// "… from 4 to 3", "… from 3 to 4", as upstream v1.32 words them; the seed,
// from an older release, shows "to 3 from 4").
func TestControllersDeploymentScaleAsTheSeed(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	c.MustKubectl(t, "apply", "-f", examplePath(t, "nginx-dep.yaml"))

	columns := func(n string) func(string) bool {
		// NAME READY UP-TO-DATE AVAILABLE AGE
		re := regexp.MustCompile(`(?m)^ng-dep\s+` + n + `/` + n + `\s+` + n + `\s+` + n + `\s+\S+$`)
		return func(out string) bool { return re.MatchString(out) }
	}
	waitKubectl(t, c, controllersTimeout, columns("4"), "get", "deploy", "ng-dep", "--no-headers")
	for _, replicas := range []int{3, 4, 3} {
		n := strconv.Itoa(replicas)
		if out := c.MustKubectl(t, "scale", "deployment", "ng-dep", "--replicas="+n); strings.TrimSpace(out) != "deployment.apps/ng-dep scaled" {
			t.Errorf("kubectl scale printed %q, want %q", out, "deployment.apps/ng-dep scaled")
		}
		waitKubectl(t, c, controllersTimeout, columns(n), "get", "deploy", "ng-dep", "--no-headers")
		waitRunningPods(t, c, "default", "dep=ng-dep-pod", replicas)
	}
	table := c.MustKubectl(t, "get", "deploy", "ng-dep")
	if header := strings.Fields(strings.SplitN(table, "\n", 2)[0]); strings.Join(header, " ") != "NAME READY UP-TO-DATE AVAILABLE AGE" {
		t.Errorf("kubectl get deploy header = %v, want NAME READY UP-TO-DATE AVAILABLE AGE", header)
	}

	// One ReplicaSet, named after the template hash, with 3 of 3 ready.
	rsOut := c.MustKubectl(t, "get", "rs", "--no-headers")
	rsRE := regexp.MustCompile(`(?m)^(ng-dep-` + templateHash + `)\s+3\s+3\s+3\s+\S+$`)
	m := rsRE.FindStringSubmatch(rsOut)
	if m == nil || len(nonEmptyLines(rsOut)) != 1 {
		t.Fatalf("kubectl get rs shows\n%s\nwant exactly one line ng-dep-<hash> 3 3 3", rsOut)
	}
	rsName := m[1]
	hash := strings.TrimPrefix(rsName, "ng-dep-")
	if got := c.MustKubectl(t, "get", "rs", rsName, "-o", "jsonpath={.metadata.labels.pod-template-hash}"); got != hash {
		t.Errorf("rs %s has pod-template-hash %q, want %q (the name's suffix)", rsName, got, hash)
	}
	pods := waitRunningPods(t, c, "default", "dep=ng-dep-pod", 3)
	if bad := notMatching(regexp.MustCompile(`^`+regexp.QuoteMeta(rsName)+`-`+podNameSuffix+`$`), pods); len(bad) > 0 {
		t.Errorf("pods %v are not named %s-<5 chars>", bad, rsName)
	}

	// The events, as describe prints them (the same message repeated is
	// one line with a count, so each text needs to appear once).
	describe := waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return strings.Contains(out, "Scaled down replica set "+rsName+" from 4 to 3") &&
			strings.Contains(out, "Scaled up replica set "+rsName+" from 3 to 4")
	}, "describe", "deployment", "ng-dep")
	q := regexp.QuoteMeta(rsName)
	for _, want := range []string{
		`(?m)^\s+Normal\s+ScalingReplicaSet\s+.*deployment-controller\s+Scaled up replica set ` + q + ` from 0 to 4$`,
		`(?m)^\s+Normal\s+ScalingReplicaSet\s+.*deployment-controller\s+Scaled down replica set ` + q + ` from 4 to 3$`,
		`(?m)^\s+Normal\s+ScalingReplicaSet\s+.*deployment-controller\s+Scaled up replica set ` + q + ` from 3 to 4$`,
		`(?m)^Replicas:\s+3 desired \| 3 updated \| 3 total \| 3 available \| 0 unavailable$`,
		`(?m)^StrategyType:\s+RollingUpdate$`,
		`(?m)^NewReplicaSet:\s+` + q + ` \(3/3 replicas created\)$`,
	} {
		if !regexp.MustCompile(want).MatchString(describe) {
			t.Errorf("kubectl describe deployment ng-dep does not match %s:\n%s", want, describe)
		}
	}
	// "Scaled down … from 4 to 3" happened twice: describe folds it into
	// one line with (x2 over …).
	if !regexp.MustCompile(`(?m)^\s+Normal\s+ScalingReplicaSet\s+\S+ \(x2 over \S+\)\s+deployment-controller\s+Scaled down replica set ` + q + ` from 4 to 3$`).MatchString(describe) {
		t.Errorf("describe does not show the scale-down event twice (x2):\n%s", describe)
	}
}
