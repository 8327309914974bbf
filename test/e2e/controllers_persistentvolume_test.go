package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kplane/test/framework"
)

// The seed's tables, as its study notes print them: the
// claims of the StatefulSet ng-headless bound to the two hand-made
// volumes of examples/pv.yaml, as `kubectl get pvc -o wide` and
// `kubectl get pv -o wide` print them on the seed's cluster (kubectl of an
// older version, without the VOLUMEATTRIBUTESCLASS column).
const (
	seedClaimsTable = `NAME                STATUS   VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   AGE     VOLUMEMODE
vol-ng-headless-0   Bound    pv001    1Gi        RWO                           6m41s   Filesystem
vol-ng-headless-1   Bound    pv002    1Gi        RWO                           58s     Filesystem
`
	seedVolumesTable = `NAME    CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS   CLAIM                       STORAGECLASS   REASON   AGE    VOLUMEMODE
pv001   1Gi        RWO            Retain           Bound    default/vol-ng-headless-0                           106s   Filesystem
pv002   1Gi        RWO            Retain           Bound    default/vol-ng-headless-1                           106s   Filesystem
`
)

// columnStart finds the header's column names: runs of characters
// separated by two or more spaces (a name like "ACCESS MODES" has one).
var columnStart = regexp.MustCompile(`\S+( \S+)*`)

// parseTable reads a kubectl table into one map per row, column name →
// cell. kubectl left-aligns every cell under its header, so a cell is the
// text between its column's start and the next column's; that keeps empty
// cells (STORAGECLASS, REASON) in their place.
func parseTable(out string) []map[string]string {
	lines := nonEmptyLines(out)
	if len(lines) == 0 {
		return nil
	}
	header := lines[0]
	spans := columnStart.FindAllStringIndex(header, -1)
	var rows []map[string]string
	for _, line := range lines[1:] {
		row := map[string]string{}
		for i, span := range spans {
			start, end := span[0], len(line)
			if i+1 < len(spans) {
				end = spans[i+1][0]
			}
			if start > len(line) {
				start = len(line)
			}
			if end > len(line) {
				end = len(line)
			}
			row[header[span[0]:span[1]]] = strings.TrimSpace(line[start:end])
		}
		rows = append(rows, row)
	}
	return rows
}

// tableDiff compares kubectl's table got with the seed's want on every
// column the seed shows except AGE, row by row (by NAME), and says what
// differs ("" when nothing does). Columns only got has (kubectl 1.32's
// VOLUMEATTRIBUTESCLASS) are not compared.
func tableDiff(got, want string) string {
	gotRows := map[string]map[string]string{}
	for _, row := range parseTable(got) {
		gotRows[row["NAME"]] = row
	}
	wantRows := parseTable(want)
	if len(gotRows) != len(wantRows) {
		return fmt.Sprintf("%d rows, want %d", len(gotRows), len(wantRows))
	}
	var diffs []string
	for _, wantRow := range wantRows {
		gotRow, ok := gotRows[wantRow["NAME"]]
		if !ok {
			diffs = append(diffs, "no row "+wantRow["NAME"])
			continue
		}
		for column, cell := range wantRow {
			if column != "AGE" && gotRow[column] != cell {
				diffs = append(diffs, fmt.Sprintf("%s %s = %q, want %q", wantRow["NAME"], column, gotRow[column], cell))
			}
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, "; ")
}

// waitTable runs kubectl args until its table matches want (see
// tableDiff) and returns it; on timeout it fails with the last table and
// what differed.
func waitTable(t *testing.T, c *framework.LocalCluster, want string, args ...string) string {
	t.Helper()
	var out string
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		r := c.Kubectl(t, "", args...)
		if r.Err != nil {
			return false, fmt.Sprintf("kubectl %s: %v\n%s%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		out = r.Stdout
		diff := tableDiff(out, want)
		return diff == "", fmt.Sprintf("kubectl %s printed:\n%s\ndifferences: %s", strings.Join(args, " "), out, diff)
	})
	return out
}

// TestControllersPersistentVolumeSeed is the seed's StatefulSet-with-volumes
// lesson, run with the real processes and the real kubectl:
//   - apply examples/pv.yaml (pv001, pv002: 1Gi RWO, no class), the headless
//     Service and the StatefulSet ng-headless with its volumeClaimTemplate;
//   - `kubectl get pvc -o wide` and `kubectl get pv -o wide` show the seed's
//     rows: vol-ng-headless-0 Bound to pv001, vol-ng-headless-1 to pv002;
//   - after a scale-down to 1, deleting the claim vol-ng-headless-1 makes
//     pv002 Released (policy Retain: it stays, still naming the claim) while
//     pv001 stays Bound;
//   - scaling up again creates a new vol-ng-headless-1, which does not get
//     the released volume back: it stays Pending with a FailedBinding event,
//     and so does the new pod ng-headless-1, which the scheduler will not
//     place while its claim is unbound (FailedScheduling, upstream's
//     message).
func TestControllersPersistentVolumeSeed(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)

	c.MustKubectl(t, "apply", "-f", examplePath(t, "pv.yaml"),
		"-f", examplePath(t, "ng-headless-svc.yaml"), "-f", examplePath(t, "ngix-sts.yaml"))
	waitRunningPods(t, c, "default", "app=ng-headless", 2)

	claims := waitTable(t, c, seedClaimsTable, "get", "pvc", "-o", "wide")
	for _, row := range parseTable(claims) {
		if class, ok := row["VOLUMEATTRIBUTESCLASS"]; ok && class != "<unset>" {
			t.Errorf("%s VOLUMEATTRIBUTESCLASS %q, want <unset>", row["NAME"], class)
		}
	}
	waitTable(t, c, seedVolumesTable, "get", "pv", "-o", "wide")

	// Release: the claim of ordinal 1 outlives its pod; delete it.
	c.MustKubectl(t, "scale", "sts", "ng-headless", "--replicas=1")
	waitRunningPods(t, c, "default", "app=ng-headless", 1)
	c.MustKubectl(t, "delete", "pvc", "vol-ng-headless-1")
	released := strings.Replace(seedVolumesTable, "Bound    default/vol-ng-headless-1", "Released default/vol-ng-headless-1", 1)
	waitTable(t, c, released, "get", "pv", "-o", "wide")

	// The StatefulSet recreates the claim; the released volume is not
	// offered to it (its claimRef names the deleted claim's UID).
	c.MustKubectl(t, "scale", "sts", "ng-headless", "--replicas=2")
	pending := regexp.MustCompile(`(?m)^vol-ng-headless-1\s+Pending\s`)
	waitKubectl(t, c, controllersTimeout, pending.MatchString, "get", "pvc", "--no-headers")
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return strings.Contains(out, "no persistent volumes available for this claim and no storage class is set")
	}, "get", "events", "--field-selector", "involvedObject.name=vol-ng-headless-1,reason=FailedBinding")
	waitTable(t, c, released, "get", "pv", "-o", "wide")
	// The new ng-headless-1 (its own UID: the first one may have waited a
	// moment for its claim too) is held back by the scheduler.
	const unbound = "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims."
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "Pending||False Unschedulable "+unbound },
		"get", "pod", "ng-headless-1", "-o", `jsonpath={.status.phase}|{.spec.nodeName}|{.status.conditions[?(@.type=="PodScheduled")].status} {.status.conditions[?(@.type=="PodScheduled")].reason} {.status.conditions[?(@.type=="PodScheduled")].message}`)
	uid := c.MustKubectl(t, "get", "pod", "ng-headless-1", "-o", "jsonpath={.metadata.uid}")
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == unbound },
		"get", "events", "--field-selector", "involvedObject.uid="+uid+",reason=FailedScheduling", "-o", "jsonpath={.items[*].message}")
}

// The table comparison itself: equal but for AGE and the extra column, and
// a difference in one cell is named.
func TestTableDiff(t *testing.T) {
	kubectl132 := `NAME                STATUS   VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE   VOLUMEMODE
vol-ng-headless-0   Bound    pv001    1Gi        RWO                           <unset>                 12s   Filesystem
vol-ng-headless-1   Bound    pv002    1Gi        RWO                           <unset>                 5s    Filesystem
`
	if diff := tableDiff(kubectl132, seedClaimsTable); diff != "" {
		t.Errorf("tableDiff = %q, want none", diff)
	}
	swapped := strings.Replace(kubectl132, "pv002", "pv003", 1)
	if diff := tableDiff(swapped, seedClaimsTable); diff != `vol-ng-headless-1 VOLUME = "pv003", want "pv002"` {
		t.Errorf("tableDiff = %q", diff)
	}
	classed := strings.Replace(kubectl132, "RWO                           <unset>", "RWO            fast           <unset>", 1)
	if diff := tableDiff(classed, seedClaimsTable); diff != `vol-ng-headless-0 STORAGECLASS = "fast", want ""` {
		t.Errorf("tableDiff = %q", diff)
	}
}
