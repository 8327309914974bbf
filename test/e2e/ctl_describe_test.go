package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// describeService is a Service in front of the nginx-dep.yaml pods, so
// that `describe svc` has endpoints to show.
const describeService = `apiVersion: v1
kind: Service
metadata:
  name: ng-svc
  labels:
    app: ng-svc
spec:
  selector:
    dep: ng-dep-pod
  ports:
  - name: http
    port: 80
    targetPort: 80
`

// TestCtlDescribeMatchesKubectl runs `ctl describe` and the real
// `kubectl describe` on the same objects of a running cluster — a pod, a
// ReplicaSet, a Deployment, a Service, a node, a namespace — and expects
// the same text, line for line, once ages are set aside; then the same
// for `ctl events` and `kubectl events`, row by row.
func TestCtlDescribeMatchesKubectl(t *testing.T) {
	c := startControllersCluster(t, 2)
	bin := framework.BuildBinaries(t)

	for _, file := range []string{"nginx-dep.yaml", "nginx-rs.yaml"} {
		c.MustKubectl(t, "apply", "-f", examplePath(t, file))
	}
	applyYAML(t, c, describeService)
	waitRunningPods(t, c, "default", "dep=ng-dep-pod", 4)
	rsPods := waitRunningPods(t, c, "default", "replicaset=test", 3)
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "4/4/4" },
		"get", "deploy", "ng-dep", "-o", "jsonpath={.status.replicas}/{.status.updatedReplicas}/{.status.availableReplicas}")
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "true true true true" },
		"get", "endpointslices", "-l", "kubernetes.io/service-name=ng-svc", "-o", "jsonpath={.items[*].endpoints[*].conditions.ready}")

	ctl := describeCommandRunner{bin: filepath.Join(bin, "ctl"), kubeconfig: c.KubeconfigPath()}
	// Two quotas over what is running, one made by kubectl, one by ctl; the
	// resourcequota controller fills in their usage (7 pods, 2 Services).
	c.MustKubectl(t, "create", "quota", "compute", "--hard=pods=20,services=5,count/deployments.apps=2")
	if out := ctl.run(t, "create", "quota", "best-effort", "--hard=pods=10", "--scopes=BestEffort"); out.code != 0 || out.stdout != "resourcequota/best-effort created\n" {
		t.Fatalf("ctl create quota: %+v", out)
	}
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "7/2/1" },
		"get", "quota", "compute", "-o", `jsonpath={.status.used.pods}/{.status.used.services}/{.status.used.count/deployments\.apps}`)
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "7" },
		"get", "quota", "best-effort", "-o", "jsonpath={.status.used.pods}")
	kubectl := func(args ...string) describeRun {
		r := c.Kubectl(t, "", args...)
		code := 0
		var exit *exec.ExitError
		if errors.As(r.Err, &exit) {
			code = exit.ExitCode()
		} else if r.Err != nil {
			t.Fatalf("kubectl %v: %v", args, r.Err)
		}
		return describeRun{stdout: r.Stdout, stderr: r.Stderr, code: code}
	}

	for _, args := range [][]string{
		{"describe", "pod", rsPods[0]},
		{"describe", "pods", "-l", "replicaset=test"},
		{"describe", "rs", "ng-rs"},
		{"describe", "deployment", "ng-dep"},
		{"describe", "service", "ng-svc"},
		{"describe", "service", "kubernetes"},
		{"describe", "endpointslices", "-l", "kubernetes.io/service-name=ng-svc"},
		{"describe", "node", "node1"},
		{"describe", "node", "control-plane"},
		{"describe", "namespace", "default"},
		{"describe", "quota", "compute"},
		{"describe", "quota"},
		{"describe", "pod", "nope"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			// Ages, heartbeats and the kubelet's usage annotation move on
			// between the two runs; a few tries find a quiet moment.
			var diff string
			for attempt := 0; attempt < 6; attempt++ {
				want, got := kubectl(args...), ctl.run(t, args...)
				diff = compareDescribe(want, got)
				if diff == "" {
					return
				}
				time.Sleep(500 * time.Millisecond)
			}
			t.Errorf("ctl %s differs from kubectl:\n%s", strings.Join(args, " "), diff)
		})
	}

	for _, args := range [][]string{
		{"events"},
		{"events", "-A"},
		{"events", "--for", "deployment/ng-dep"},
		{"events", "--for", "rs/ng-rs", "--types", "Normal"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var diff string
			for attempt := 0; attempt < 6; attempt++ {
				want, got := kubectl(args...), ctl.run(t, args...)
				diff = compareEventRows(want, got)
				if diff == "" {
					return
				}
				time.Sleep(500 * time.Millisecond)
			}
			t.Errorf("ctl %s differs from kubectl:\n%s", strings.Join(args, " "), diff)
		})
	}
}

// describeRun is what one command printed and its exit code.
type describeRun struct {
	stdout, stderr string
	code           int
}

// describeCommandRunner runs the built ctl against the test cluster.
type describeCommandRunner struct {
	bin, kubeconfig string
}

func (r describeCommandRunner) run(t *testing.T, args ...string) describeRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, append([]string{"--kubeconfig", r.kubeconfig}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("ctl %v: %v", args, err)
	}
	return describeRun{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// ageCell matches the ages describe prints ("5s", "2m18s", "3h"; in an
// events table also "64s (x2 over 2m18s)"), which move on between two
// runs a moment apart.
var ageCell = regexp.MustCompile(`\b\d+[smhdy](\d+[smh])?\b`)

// compareDescribe compares the two runs line by line, after replacing
// ages, and returns a diff or "".
func compareDescribe(want, got describeRun) string {
	var diffs []string
	if want.code != got.code {
		diffs = append(diffs, fmt.Sprintf("exit code: kubectl %d, ctl %d", want.code, got.code))
	}
	if strings.ReplaceAll(want.stderr, "kubectl", "ctl") != got.stderr {
		diffs = append(diffs, fmt.Sprintf("stderr:\n- %q\n+ %q", want.stderr, got.stderr))
	}
	wantLines := strings.Split(ageCell.ReplaceAllString(want.stdout, "<age>"), "\n")
	gotLines := strings.Split(ageCell.ReplaceAllString(got.stdout, "<age>"), "\n")
	for i := 0; i < max(len(wantLines), len(gotLines)); i++ {
		var w, g string
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if w != g {
			diffs = append(diffs, fmt.Sprintf("line %d:\n- %q\n+ %q", i+1, w, g))
		}
	}
	return strings.Join(diffs, "\n")
}

// eventCellSeparator separates the cells of an events table: padding is
// at least three spaces.
var eventCellSeparator = regexp.MustCompile(` {3,}`)

// compareEventRows compares two `events` tables row by row, leaving out
// the LAST SEEN column (the first, or the second after NAMESPACE).
func compareEventRows(want, got describeRun) string {
	rows := func(out string) []string {
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		lastSeen := 0
		if strings.HasPrefix(lines[0], "NAMESPACE") {
			lastSeen = 1
		}
		var rows []string
		for _, line := range lines {
			cells := eventCellSeparator.Split(line, -1)
			if len(cells) > lastSeen {
				cells = append(cells[:lastSeen], cells[lastSeen+1:]...)
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
		return rows
	}
	var diffs []string
	if want.code != got.code || want.stderr != got.stderr {
		diffs = append(diffs, fmt.Sprintf("kubectl: exit %d, stderr %q; ctl: exit %d, stderr %q", want.code, want.stderr, got.code, got.stderr))
	}
	// LAST SEEN is left out, and events seen in the same second (or one
	// repeated between the two runs) have no fixed order: compare the rows
	// as sets, header first.
	w, g := rows(want.stdout), rows(got.stdout)
	if len(w) > 1 {
		sort.Strings(w[1:])
	}
	if len(g) > 1 {
		sort.Strings(g[1:])
	}
	for i := 0; i < max(len(w), len(g)); i++ {
		var wr, gr string
		if i < len(w) {
			wr = w[i]
		}
		if i < len(g) {
			gr = g[i]
		}
		if wr != gr {
			diffs = append(diffs, fmt.Sprintf("row %d:\n- %s\n+ %s", i+1, wr, gr))
		}
	}
	return strings.Join(diffs, "\n")
}
